package rules

import (
	"strconv"
	"strings"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// DDLTransaction is DSQL104.
var DDLTransaction = register(&Rule{
	ID:       "DSQL104",
	Name:     "ddl-transaction",
	Severity: Error,
	Summary:  "more than one DDL statement, or DDL and DML, in one Aurora DSQL transaction",
	check:    checkDDLTransaction,
})

func checkDDLTransaction(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
	f := factsOf(st)
	if f.Class != sqlparse.ClassDDL && f.Class != sqlparse.ClassDML {
		return
	}
	p := st.Place
	mode, sec := ctx.Config.MigrationTx, p.Section
	if sec == nil {
		sec = ctx.file
	}
	inTx := ctx.Config.SQLFile && !p.Autocommit && (mode == TxFile || mode == TxAuto && sec != nil)
	var prior sqlparse.Prior
	var how string
	switch {
	case p.Block > 0:
		prior, how = p.InBlock, "in the same BEGIN ... COMMIT block"
	case !ctx.Config.SQLFile:
		prior, how = p.InRun, "in the same Exec string (one implicit transaction)"
	case p.Group > 0 && (!inTx || conflicts(p.InGroup, f.Class)):
		prior, how = p.InGroup, "between goose StatementBegin and StatementEnd (sent as one Exec, one implicit transaction)"
	case inTx && ctx.Config.Runner == RunnerGolangMigrate:
		prior, how = p.InRun, "in the same migration transaction (golang-migrate, which the module requires, sends a file as one Exec: one implicit transaction)"
	case inTx && ctx.Config.Runner == RunnerExec:
		prior, how = p.InRun, "in the same Exec call (the package's Go code runs this embedded file as one string: one implicit transaction)"
	case inTx && ctx.Config.Runner == RunnerPopAutocommit:
		prior, how = p.InRun, "in the same Exec (pop runs an .autocommit. file without a transaction but as one Exec of its whole text: one implicit transaction)"
	case inTx && ctx.Config.Runner == RunnerPop:
		prior, how = p.InRun, "in the same migration transaction (pop, which the module requires, runs a file in one transaction)"
	case inTx && mode == TxFile:
		prior, how = p.InRun, "in the same migration transaction (-migration-tx=file: the runner applies the file, or its goose/dbmate section, in one transaction)"
	case inTx && sec.Tool == "sql-migrate":
		prior, how = p.InRun, "in the same migration transaction (sql-migrate runs all of a file's "+map[bool]string{false: "Up", true: "Down"}[sec.Down]+
			" sections in one transaction unless one is marked "+noTx(sec)+")"
	case inTx:
		prior, how = p.InRun, "in the same migration transaction ("+sec.Tool+" runs a section in one transaction unless it is marked "+noTx(sec)+")"
	default:
		return
	}
	tag := f.Tag
	if tag == "" {
		tag = "this statement"
	}
	// The tool also records the migration's version in its transaction:
	// a section's one DDL statement fails with it.
	records, fix, also := inTx && sec != nil && p.Block == 0, "", ""
	if records {
		fix = "mark the section " + noTx(sec) + " (each statement then commits on its own)"
		if sec.Tool == RunnerPop {
			fix = "name the file " + noTx(sec) + ", which pop runs without a transaction, one DDL statement to a file"
		}
		if sec.Tool == "goose" {
			fix += ", or run goose's Provider with goose.WithIsolateDDL(true)"
		}
		also = "; " + sec.Tool + " also records the migration's version in this transaction: " + fix
	}
	switch {
	case f.Class == sqlparse.ClassDDL && prior.DDL != nil:
		report(st.KeywordSpan, tag+" runs "+how+" as the "+describe(ctx, prior.DDL)+
			": Aurora DSQL allows one DDL statement per transaction (0A000 multiple ddl statements not supported in a transaction); "+
			"commit between them, or give each DDL statement its own migration"+also, nil)
	case f.Class == sqlparse.ClassDDL && prior.DML != nil, f.Class == sqlparse.ClassDML && prior.DDL != nil:
		other := prior.DML
		if f.Class == sqlparse.ClassDML {
			other = prior.DDL
		}
		report(st.KeywordSpan, tag+" runs "+how+" as the "+describe(ctx, other)+
			": Aurora DSQL does not mix schema changes and data changes in one transaction (0A000 ddl and dml are not supported in the same transaction); "+
			"commit between them, or move the data change to its own migration"+also, nil)
	case f.Class == sqlparse.ClassDDL && records && sec.DDL == 1 && sec.DML == 0:
		report(st.KeywordSpan, tag+" runs in "+sec.Tool+"'s migration transaction, where "+sec.Tool+" also records the migration's version ("+versionWrite(sec)+
			"): Aurora DSQL does not mix schema changes and data changes in one transaction (0A000 ddl and dml are not supported in the same transaction); "+fix, nil)
	}
}

// conflicts reports a statement of class c that fails after prior in one
// transaction.
func conflicts(prior sqlparse.Prior, c sqlparse.Class) bool {
	return prior.DDL != nil || c == sqlparse.ClassDDL && prior.DML != nil
}

// migrationTools are, per tool that records a migration's version in its
// transaction, the table it records it in and the annotation (for pop: the
// file name) that runs an up or a down migration without a transaction.
var migrationTools = map[string]struct{ table, upNoTx, downNoTx string }{
	"goose":       {"goose_db_version", "`-- +goose NO TRANSACTION`", "`-- +goose NO TRANSACTION`"},
	"dbmate":      {"schema_migrations", "`-- migrate:up transaction:false`", "`-- migrate:down transaction:false`"},
	"sql-migrate": {"gorp_migrations", "`-- +migrate Up notransaction`", "`-- +migrate Down notransaction`"},
	RunnerPop:     {"schema_migration", "`x.autocommit.up.sql`", "`x.autocommit.down.sql`"},
}

// noTx is what runs a tool's section without a transaction.
func noTx(sec *sqlparse.Section) string {
	if sec.Down {
		return migrationTools[sec.Tool].downNoTx
	}
	return migrationTools[sec.Tool].upNoTx
}

// versionWrite is the statement a tool records a section's version with.
func versionWrite(sec *sqlparse.Section) string {
	if sec.Down {
		return "DELETE FROM " + migrationTools[sec.Tool].table
	}
	return "INSERT INTO " + migrationTools[sec.Tool].table
}

// describe names an earlier statement: its command tag and, in a .sql
// file, its line.
func describe(ctx *Context, st *sqlparse.Statement) string {
	tag := "statement"
	if st.Facts != nil && st.Facts.Tag != "" {
		tag = st.Facts.Tag
	}
	if ctx.Config.SQLFile && st.Span.Start <= len(ctx.Text) {
		tag += " on line " + strconv.Itoa(strings.Count(ctx.Text[:st.Span.Start], "\n")+1)
	}
	return tag
}
