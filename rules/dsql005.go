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
