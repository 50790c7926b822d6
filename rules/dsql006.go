package rules

import "github.com/dsqllint/dsqllint/sqlparse"

// LockWaitPolicy is DSQL006.
var LockWaitPolicy = register(&Rule{
	ID:       "DSQL006",
	Name:     "lock-wait-policy",
	Severity: Warning,
	Summary:  "NOWAIT / SKIP LOCKED never act on Aurora DSQL: nothing waits, nothing is skipped",
	check: func(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
		for _, l := range st.Locks {
			// Reported beside DSQL001 too: its fix (FOR UPDATE) keeps the
			// policy, and every problem of a statement is said at once.
			if l.Wait == sqlparse.WaitBlock || !locksRows(st, l) {
				continue
			}
			sp := l.WaitSpan
			if sp == (sqlparse.Span{}) {
				sp = l.Span
			}
			switch l.Wait {
			case sqlparse.WaitSkipLocked:
				report(sp, "SKIP LOCKED skips nothing on Aurora DSQL: under optimistic concurrency no row is locked while a transaction runs, "+
					"so concurrent workers read the same rows and all but one fail at COMMIT with 40001 (OC000); "+
					"claim each row with a compare-and-swap UPDATE (SET owner = $me WHERE id = $1 AND owner IS NULL) and check one row changed, "+
					"or partition the queue between workers", nil)
			case sqlparse.WaitNoWait:
				report(sp, "NOWAIT never fires on Aurora DSQL: nothing waits under optimistic concurrency, "+
					"so the conflict it guarded against surfaces at COMMIT as 40001 (OC000), not as 55P03 lock_not_available; "+
					"drop NOWAIT and retry the whole transaction on 40001", nil)
			}
		}
	},
})
