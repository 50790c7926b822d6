package rules

// LockWithoutRetry is DSQL005, reported by the analyzer where a FOR UPDATE
// (or a fenced read-modify-write) runs on a transaction begun outside any
// 40001 retry.
var LockWithoutRetry = register(&Rule{
	ID:       "DSQL005",
	Name:     "lock-without-retry",
	Severity: Warning,
	Summary:  "FOR UPDATE / read-modify-write in a transaction not retried on SQLSTATE 40001",
})

// LockWithoutRetryMessage is DSQL005's message. what is "SELECT ... FOR
// UPDATE" or "read-modify-write"; begin says where the transaction starts.
func LockWithoutRetryMessage(what, begin, shape string) string {
	return what + " runs in the transaction begun at " + begin + ", which nothing retries on SQLSTATE 40001; " +
		"on Aurora DSQL FOR UPDATE does not block and the loser fails at COMMIT, so re-run the whole transaction: " + shape
}

// SingleLockWithoutRetryMessage is DSQL005's message for a statement that
// locks FOR UPDATE outside any transaction; exec says it returns no rows,
// pgx that it runs on a pgx handle.
func SingleLockWithoutRetryMessage(exec, pgx bool) string {
	shape := "occ.ExecWithRetry(ctx, db, query, args...)"
	switch {
	case exec && pgx:
		shape = "occpgx.ExecWithRetry(ctx, pool, query, args...)"
	case pgx:
		shape = "occpgx.RunTxWithRetry(ctx, pool, func(tx pgx.Tx) (T, error) { ... })"
	case !exec:
		shape = "occ.RunTxWithRetry(ctx, db, func(tx *sql.Tx) (T, error) { ... })"
	}
	return "this statement locks FOR UPDATE outside any transaction, so Aurora DSQL runs it as a transaction of its own, " +
		"and nothing retries it on SQLSTATE 40001: FOR UPDATE does not block, and when another transaction commits a write " +
		"of the same rows first this statement fails at commit; re-run it on 40001: " + shape
}
