package rules

import "github.com/dsqllint/dsqllint/sqlparse"

// Savepoint is DSQL010. Its Go form (pgx nested Tx.Begin) is reported by
// the analyzer.
var Savepoint = register(&Rule{
	ID:       "DSQL010",
	Name:     "savepoint",
	Severity: Error,
	Summary:  "SAVEPOINT, RELEASE and ROLLBACK TO are rejected by Aurora DSQL (0A000)",
	check: func(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
		if st.Tx == nil {
			return
		}
		var what string
		switch st.Tx.Kind {
		case sqlparse.TxSavepoint:
			what = "SAVEPOINT"
		case sqlparse.TxRelease:
			what = "RELEASE"
		case sqlparse.TxRollbackTo:
			what = "ROLLBACK TO"
		default:
			return
		}
		report(st.KeywordSpan, what+" is rejected by Aurora DSQL (0A000 unsupported transaction statement: "+what+"); "+
			"restructure so that a failure rolls back and retries the whole transaction (occ.RunTxWithRetry)", nil)
	},
})

// NestedTxMessage is DSQL010's message for pgx's Tx.Begin.
const NestedTxMessage = "pgx Tx.Begin starts a nested transaction with SAVEPOINT, which Aurora DSQL rejects (0A000 unsupported transaction statement: SAVEPOINT); " +
	"run the work in the outer transaction and let occpgx.RunTxWithRetry retry all of it"
