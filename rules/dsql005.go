package rules

import "strings"

// LockWithoutRetry is DSQL005, reported by the analyzer at a FOR UPDATE
// (or a fenced read-modify-write) that some way of running it leaves
// outside any 40001 retry.
var LockWithoutRetry = register(&Rule{
	ID:       "DSQL005",
	Name:     "lock-without-retry",
	Severity: Warning,
	Summary:  "FOR UPDATE / read-modify-write in a transaction not retried on SQLSTATE 40001",
})

// LockContext is what DSQL005's message says of one lock.
type LockContext struct {
	// What is "SELECT ... FOR UPDATE" or "this read-modify-write"; At is
	// where the lock is when the finding stands elsewhere (at the Begin of
	// another package: "store.go:42").
	What, At string
	// Where it runs, one of: Begin ("service.go:16") where its
	// transaction begins; Pool, outside any transaction; Root, the
	// function whose callers hand it its transaction; Untraced, on a
	// transaction not traced to its Begin; Unfollowed, where dsqllint
	// cannot follow it.
	Begin      string
	Pool       bool
	Root       string
	Untraced   bool
	Unfollowed bool
	// Exec says the statement reads no rows, PGX that it runs on pgx.
	Exec, PGX bool
	// NoRetry says nothing in the module retries on 40001 at all.
	NoRetry bool
	// Fix names what -fix does ("-fix runs the transaction of
	// (*Store).Reserve in the retry helper"); NoFix why it offers nothing.
	Fix, NoFix string
}

// LockRetryMessage is DSQL005's message.
func LockRetryMessage(c LockContext) string {
	lock := "FOR UPDATE"
	if rest, ok := strings.CutPrefix(c.What, "SELECT ... "); ok {
		lock = rest // FOR NO KEY UPDATE (FOR UPDATE once the share-lock fix applies)
	}
	var where, prefix string
	if c.At != "" {
		c.What += " at " + c.At
		prefix = c.What + ": "
	}
	switch {
	case c.Begin != "":
		where = c.What + " runs in the transaction begun at " + c.Begin
	case c.Pool:
		where = prefix + "this statement locks " + lock + " outside any transaction, so Aurora DSQL runs it as a transaction of its own"
	case c.Root != "":
		where = c.What + " runs on the transaction " + c.Root + " is handed by its callers"
	case c.Untraced:
		where = c.What + " runs on a transaction dsqllint does not trace to its Begin (kept in a struct field or a context, or made by code it does not know)"
	default:
		where = c.What + " runs where dsqllint cannot follow it (a call of an ORM or a wrapper it does not know, a value handed on)"
	}
	var retry string
	switch {
	case c.NoRetry:
		retry = ", and nothing in this module retries on SQLSTATE 40001"
	case c.Pool:
		retry = ", and nothing retries it on SQLSTATE 40001"
	case c.Begin != "":
		retry = ", which nothing retries on SQLSTATE 40001"
	default:
		retry = ", and no retry on SQLSTATE 40001 is shown around it"
	}
	msg := where + retry + "; on Aurora DSQL FOR UPDATE does not block and the loser fails at COMMIT, so re-run the whole transaction: " + txShape(c.PGX)
	if c.Pool {
		msg = where + retry + ": FOR UPDATE does not block, and when another transaction commits a write of the same rows first " +
			"this statement fails at commit; re-run it on 40001: " + singleShape(c.Exec, c.PGX)
	}
	switch {
	case c.Fix != "":
		msg += " (" + c.Fix + ")"
	case c.NoFix != "":
		msg += " (no -fix: " + c.NoFix + ")"
	}
	return msg
}

func txShape(pgx bool) string {
	if pgx {
		return "occpgx.RunTxWithRetry(ctx, pool, func(tx pgx.Tx) (T, error) { ... })"
	}
	return "occ.RunTxWithRetry(ctx, db, func(tx *sql.Tx) (T, error) { ... })"
}

func singleShape(exec, pgx bool) string {
	switch {
	case exec && pgx:
		return "occpgx.ExecWithRetry(ctx, pool, query, args...)"
	case exec:
		return "occ.ExecWithRetry(ctx, db, query, args...)"
	}
	return txShape(pgx)
}
