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
	var prior sqlparse.Prior
	var how string
	switch {
	case p.Block > 0:
		prior, how = p.InBlock, "in the same BEGIN ... COMMIT block"
	case !ctx.Config.SQLFile:
		prior, how = p.InRun, "in the same Exec string (one implicit transaction)"
	case ctx.Config.MigrationTx == TxFile && !p.Autocommit:
		prior, how = p.InRun, "in the same migration transaction (-migration-tx=file: the runner applies the file, or its goose/dbmate section, in one transaction)"
	case p.Group > 0:
		prior, how = p.InGroup, "between goose StatementBegin and StatementEnd (sent as one Exec, one implicit transaction)"
	default:
		return
	}
	tag := f.Tag
	if tag == "" {
		tag = "this statement"
	}
	switch {
	case f.Class == sqlparse.ClassDDL && prior.DDL != nil:
		report(st.KeywordSpan, tag+" runs "+how+" as the "+describe(ctx, prior.DDL)+
			": Aurora DSQL allows one DDL statement per transaction (0A000 multiple ddl statements not supported in a transaction); "+
			"commit between them, or give each DDL statement its own migration", nil)
	case f.Class == sqlparse.ClassDDL && prior.DML != nil, f.Class == sqlparse.ClassDML && prior.DDL != nil:
		other := prior.DML
		if f.Class == sqlparse.ClassDML {
			other = prior.DDL
		}
		report(st.KeywordSpan, tag+" runs "+how+" as the "+describe(ctx, other)+
			": Aurora DSQL does not mix schema changes and data changes in one transaction (0A000 ddl and dml are not supported in the same transaction); "+
			"commit between them, or move the data change to its own migration", nil)
	}
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
