package rules

import "github.com/dsqllint/dsqllint/sqlparse"

// forKeyShareSince is the date DSQL began to accept FOR KEY SHARE.
var forKeyShareSince = MustVersion("2026-08-25")

// ShareLock is DSQL001.
var ShareLock = register(&Rule{
	ID:       "DSQL001",
	Name:     "share-lock",
	Severity: Error,
	Summary:  "FOR SHARE / FOR NO KEY UPDATE are rejected by Aurora DSQL (0A000)",
	check: func(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string)) {
		for _, l := range st.Locks {
			if !locksRows(st, l) {
				continue
			}
			switch {
			case l.Strength == sqlparse.ForShare || l.Strength == sqlparse.ForNoKeyUpdate:
			case l.Strength == sqlparse.ForKeyShare && ctx.Config.Target.Before(forKeyShareSince):
			default:
				continue
			}
			report(l.Span, shareLockMessage(l.Strength, ctx.Config.Target))
		}
	},
})

func shareLockMessage(s sqlparse.Strength, target Version) string {
	since := ""
	if s == sqlparse.ForKeyShare {
		since = " before 2026-08-25 (target " + target.String() + ")"
	}
	return s.String() + " is not supported by Aurora DSQL" + since +
		" (0A000 locking clauses other than FOR UPDATE/FOR KEY SHARE are not supported); " +
		"use FOR UPDATE, or drop the clause if every later write of this row is fenced"
}

// locksRows filters out what cannot be a real locking read: a SELECT with no
// FROM locks nothing, and prose that happens to parse has none.
func locksRows(st *sqlparse.Statement, l *sqlparse.Lock) bool {
	return st.Fragment || (l.Select != nil && l.Select.HasFrom)
}
