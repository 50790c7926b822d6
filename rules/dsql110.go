package rules

import "github.com/dsqllint/dsqllint/sqlparse"

// ForeignKey is DSQL110.
var ForeignKey = register(&Rule{
	ID:       "DSQL110",
	Name:     "foreign-key",
	Severity: Error,
	Summary:  "REFERENCES / FOREIGN KEY before Aurora DSQL supported them (2026-08-26)",
	check: func(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
		if !ctx.Config.Target.Before(foreignKeySince) {
			return
		}
		msg := " is supported by Aurora DSQL only since 2026-08-26" + targetNote(ctx) +
			"; before that any foreign key fails (0A000): drop it and check the reference in the application, or target a newer cluster"
		f := factsOf(st)
		if f.Table != nil {
			for _, col := range f.Table.Columns {
				for _, con := range col.Constraints {
					if con.Kind == sqlparse.ConForeign {
						report(con.Span, "REFERENCES on column "+col.Name+msg, nil)
					}
				}
			}
			for _, con := range f.Table.Constraints {
				if con.Kind == sqlparse.ConForeign {
					report(con.Span, "FOREIGN KEY"+msg, nil)
				}
			}
		}
		if f.Alter != nil {
			for _, c := range f.Alter.Cmds {
				if c.Kind == sqlparse.AlterAddConstraint && c.Constraint != nil && c.Constraint.Kind == sqlparse.ConForeign {
					report(c.Span, "ADD CONSTRAINT ... FOREIGN KEY"+msg, nil)
				}
			}
		}
	},
})
