package rules

import (
	"strings"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// AlterTable is DSQL108.
var AlterTable = register(&Rule{
	ID:       "DSQL108",
	Name:     "alter-table",
	Severity: Error,
	Summary:  "ALTER TABLE forms Aurora DSQL rejects: ADD COLUMN with constraints, ALTER COLUMN TYPE, SET NOT NULL, ADD CONSTRAINT without NOT VALID, ALTER INDEX",
	check:    checkAlterTable,
})

var constraintWords = map[sqlparse.ConstraintKind]string{
	sqlparse.ConNotNull: "NOT NULL", sqlparse.ConDefault: "DEFAULT", sqlparse.ConCheck: "CHECK",
	sqlparse.ConPrimary: "PRIMARY KEY", sqlparse.ConUnique: "UNIQUE", sqlparse.ConForeign: "REFERENCES",
	sqlparse.ConGenerated: "GENERATED", sqlparse.ConExclusion: "EXCLUDE",
}

func checkAlterTable(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
	ad := factsOf(st).Alter
	if ad == nil {
		return
	}
	if ad.Index {
		report(st.KeywordSpan, "ALTER INDEX is not supported by Aurora DSQL (0A000); drop the index and create the new one with CREATE INDEX ASYNC", nil)
		return
	}
	target := ctx.Config.Target
	for _, c := range ad.Cmds {
		switch c.Kind {
		case sqlparse.AlterAddColumn:
			if c.Column == nil {
				continue
			}
			var words []string
			for _, con := range c.Column.Constraints {
				if w, ok := constraintWords[con.Kind]; ok && !strings.Contains(strings.Join(words, ","), w) {
					words = append(words, w)
				}
			}
			if len(words) > 0 {
				report(c.Span, "ADD COLUMN "+c.Column.Name+" with "+strings.Join(words, ", ")+": Aurora DSQL adds only bare columns "+
					"(0A000 ALTER TABLE ADD COLUMN with constraint not supported); add the column alone, backfill it in batches, "+
					"then constrain it (ADD CONSTRAINT ... CHECK (...) NOT VALID, ALTER TABLE ASYNC ... VALIDATE CONSTRAINT)", nil)
			}
		case sqlparse.AlterColumnType:
			report(c.Span, "ALTER COLUMN ... TYPE is not supported by Aurora DSQL (0A000 unsupported ALTER TABLE ALTER COLUMN ... SET DATA TYPE statement); "+
				"add a column of the new type, backfill it in batches, switch readers, then drop the old column", nil)
		case sqlparse.AlterSetNotNull:
			report(c.Span, "ALTER COLUMN ... SET NOT NULL is not in Aurora DSQL's ALTER TABLE grammar (0A000); "+
				"add CHECK (column IS NOT NULL) NOT VALID and validate it with ALTER TABLE ASYNC ... VALIDATE CONSTRAINT, or declare NOT NULL in CREATE TABLE", nil)
		case sqlparse.AlterSetStatistics:
			report(c.Span, "ALTER COLUMN ... SET STATISTICS is not supported by Aurora DSQL (0A000 unsupported ALTER TABLE ALTER COLUMN ... SET STATISTICS statement); drop it", nil)
		case sqlparse.AlterAddConstraint:
			addConstraintFinding(ctx, c, report)
		case sqlparse.AlterValidate:
			switch {
			case target.Before(dropColumnSince):
				report(c.Span, "VALIDATE CONSTRAINT is supported by Aurora DSQL only since 2026-08-03"+targetNote(ctx)+" (0A000 unsupported ALTER TABLE VALIDATE CONSTRAINT statement)", nil)
			case !ad.Async:
				var fix *Fix
				if w := textOf(ctx, ad.Words); w != "" {
					fix = insertion("Add ASYNC", ad.Words.End, " "+matchCase("ASYNC", lastWord(w)))
				}
				report(c.Span, "VALIDATE CONSTRAINT runs on Aurora DSQL only as a background job (0A000 unsupported ALTER TABLE VALIDATE CONSTRAINT statement); "+
					"write ALTER TABLE ASYNC ... VALIDATE CONSTRAINT and wait for its job", fix)
			}
		case sqlparse.AlterDropColumn:
			if target.Before(dropColumnSince) {
				report(c.Span, "DROP COLUMN is supported by Aurora DSQL only since 2026-08-03"+targetNote(ctx)+
					" (0A000); stop using the column, or re-create the table without it", nil)
			}
		}
	}
}

func addConstraintFinding(ctx *Context, c sqlparse.AlterCmd, report func(sqlparse.Span, string, *Fix)) {
	con := c.Constraint
	if con == nil {
		return
	}
	target := ctx.Config.Target
	switch con.Kind {
	case sqlparse.ConPrimary, sqlparse.ConUnique:
		report(c.Span, "ADD "+constraintWords[con.Kind]+" to an existing table is not supported by Aurora DSQL (0A000 unsupported ALTER TABLE ADD CONSTRAINT statement); "+
			"declare it in CREATE TABLE, or create a unique index with CREATE UNIQUE INDEX ASYNC", nil)
	case sqlparse.ConForeign, sqlparse.ConCheck:
		if con.Kind == sqlparse.ConForeign && target.Before(foreignKeySince) {
			return // DSQL110
		}
		what := "CHECK"
		if con.Kind == sqlparse.ConForeign {
			what = "FOREIGN KEY"
		}
		switch {
		case target.Before(dropColumnSince):
			report(c.Span, "ADD CONSTRAINT ... "+what+" on an existing table is supported by Aurora DSQL only since 2026-08-03, with NOT VALID"+targetNote(ctx)+
				" (0A000 unsupported ALTER TABLE ADD CONSTRAINT statement); declare it in CREATE TABLE", nil)
		case !con.NotValid:
			report(c.Span, "ADD CONSTRAINT ... "+what+" without NOT VALID: Aurora DSQL cannot validate it in the statement "+
				"(0A000 unsupported ALTER TABLE ADD CONSTRAINT statement); add it NOT VALID, then run ALTER TABLE ASYNC ... VALIDATE CONSTRAINT", nil)
		}
	}
}
