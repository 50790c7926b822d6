package rules

import "github.com/dsqllint/dsqllint/sqlparse"

// MySQLShareLock is DSQL002.
var MySQLShareLock = register(&Rule{
	ID:       "DSQL002",
	Name:     "mysql-share-lock",
	Severity: Error,
	Summary:  "MySQL LOCK IN SHARE MODE is a syntax error on PostgreSQL and Aurora DSQL",
	check: func(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
		for _, l := range st.Locks {
			if l.Strength != sqlparse.LockInShareMode || !locksRows(st, l) {
				continue
			}
			report(l.Span, "LOCK IN SHARE MODE is MySQL syntax, a syntax error on PostgreSQL and Aurora DSQL (42601 syntax error at or near \"LOCK\"); "+
				"use FOR UPDATE, or drop the clause if every later write of this row is fenced", toForUpdate(ctx.Text, l))
		}
	},
})
