package rules

// UncheckedCommit is DSQL011, reported by the analyzer where a transaction
// that writes drops the error of its Commit.
var UncheckedCommit = register(&Rule{
	ID:       "DSQL011",
	Name:     "unchecked-commit",
	Severity: Warning,
	Summary:  "a transaction that writes drops the error of its Commit, where Aurora DSQL reports a conflict (40001)",
})

// UncheckedCommitMessage is DSQL011's message: how says what happens to
// the error, write names the transaction's first write.
func UncheckedCommitMessage(how, write string) string {
	return "the error of this Commit " + how + ", and the transaction writes (" + write + "): on Aurora DSQL a write that conflicts with another transaction's fails here, at COMMIT " +
		"(40001 change conflicts with another transaction (OC000)), so the write is lost while the caller sees success; return the error, and re-run the transaction on 40001 (occ.RunTxWithRetry)"
}
