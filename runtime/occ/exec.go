package occ

import (
	"context"
	"database/sql"

	"github.com/dsqllint/dsqllint/runtime/internal/retry"
)

// ExecWithRetry runs one statement and runs it again when it loses a
// conflict (SQLSTATE 40001), exactly as RunTxWithRetry runs a transaction,
// with the default options. It returns the result of the attempt that
// committed. Use ExecWithRetryOpts to pass options.
//
// A statement outside a transaction is a transaction of its own, and on
// Aurora DSQL it loses conflicts like any other. This one, for example, is
// safe on PostgreSQL at READ COMMITTED, where FOR UPDATE makes concurrent
// writers wait, but on DSQL every concurrent writer but the first to commit
// fails:
//
//	WITH t AS (SELECT id FROM counters WHERE id = $1 FOR UPDATE)
//	UPDATE counters SET n = counters.n + 1 FROM t WHERE counters.id = t.id
//
// db is a *sql.DB or a *sql.Conn, never a *sql.Tx: a statement inside a
// transaction that is already open cannot be retried alone, because the
// 40001 has rolled back the whole transaction. Retry that transaction with
// RunTxWithRetry instead.
func ExecWithRetry(ctx context.Context, db TxBeginner, query string, args ...any) (sql.Result, error) {
	return ExecWithRetryOpts(ctx, db, nil, query, args...)
}

// ExecWithRetryOpts is ExecWithRetry with options: WithConfig, WithOperation,
// WithHooks and WithTxOptions, as RunTxWithRetry takes them. The options come
// before the query because the statement's arguments are variadic; a nil
// slice means the defaults.
//
//	res, err := occ.ExecWithRetryOpts(ctx, db, []occ.Option{occ.WithOperation("BumpCounter")},
//		"UPDATE counters SET n = n + 1 WHERE id = $1", id)
//
// Each attempt runs the statement in a transaction of its own, BEGIN, the
// statement, COMMIT, so the errors are RunTxWithRetry's: only a 40001, from
// the statement or from COMMIT, is retried; after MaxRetries+1 conflicting
// attempts the error is a *RetriesExhaustedError; a COMMIT that got no answer
// is an *AmbiguousCommitError; 0A000 and 54000 come with a hint; any other
// error from the statement is returned unchanged after one attempt.
//
// The query must be one statement that may run inside a transaction block:
// not BEGIN, COMMIT or ROLLBACK, and not VACUUM or CREATE INDEX CONCURRENTLY,
// which PostgreSQL refuses there.
//
// Every attempt sends the same query and arguments, and only the statement
// itself sees the fresh snapshot. Compute new values in SQL from the rows the
// statement reads (SET n = n + 1), or make the write conditional (WHERE
// version = $2, then check RowsAffected); a value read before the call and
// passed as an argument (SET n = $1) overwrites whatever was committed since
// that read, retried or not. Reads and writes that belong together go in one
// RunTxWithRetry.
func ExecWithRetryOpts(ctx context.Context, db TxBeginner, opts []Option, query string, args ...any) (sql.Result, error) {
	s := retry.Resolve(opts)
	d, err := newSQLDriver(db, s, "ExecWithRetryOpts")
	if err != nil {
		return nil, err
	}
	// A transaction per attempt, not the bare statement: only a COMMIT
	// without an answer leaves the outcome in doubt, and it is reported.
	return retry.Run(ctx, d, s, func(tx *sql.Tx) (sql.Result, error) {
		return tx.ExecContext(ctx, query, args...)
	})
}
