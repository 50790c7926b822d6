package occpgx

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dsqllint/dsqllint/runtime/internal/retry"
	"github.com/dsqllint/dsqllint/runtime/occ"
)

// ExecWithRetry runs one statement and runs it again when it loses a
// conflict (SQLSTATE 40001), exactly as RunTxWithRetry runs a transaction,
// with the default options. It returns the command tag of the attempt that
// committed. It behaves as occ.ExecWithRetry does, with pgx's types; use
// ExecWithRetryOpts to pass options.
//
// db is a *pgxpool.Pool or a *pgx.Conn, never a pgx.Tx: a statement inside
// a transaction that is already open cannot be retried alone, because the
// 40001 has rolled back the whole transaction. Retry that transaction with
// RunTxWithRetry instead.
func ExecWithRetry(ctx context.Context, db TxBeginner, query string, args ...any) (pgconn.CommandTag, error) {
	return ExecWithRetryOpts(ctx, db, nil, query, args...)
}

// ExecWithRetryOpts is ExecWithRetry with options: occ.WithConfig,
// occ.WithOperation, occ.WithHooks and WithTxOptions, as RunTxWithRetry takes
// them. The options come before the query because the statement's arguments
// are variadic; a nil slice means the defaults.
//
//	tag, err := occpgx.ExecWithRetryOpts(ctx, pool, []occ.Option{occ.WithOperation("BumpCounter")},
//		"UPDATE counters SET n = n + 1 WHERE id = $1", id)
//
// Each attempt runs the statement in a transaction of its own (BEGIN, the
// statement, COMMIT; see occ.ExecWithRetryOpts for why), so the errors are
// RunTxWithRetry's: only a 40001, from the statement or from COMMIT, is
// retried; after MaxRetries+1 conflicting attempts the error is an
// *occ.RetriesExhaustedError; a COMMIT that got no answer is an
// *occ.AmbiguousCommitError; 0A000 and 54000 come with a hint; any other
// error from the statement is returned unchanged after one attempt.
//
// The query must be one statement that may run inside a transaction block.
// Every attempt sends the same query and arguments, so compute new values
// in SQL from the rows the statement reads (SET n = n + 1) or make the write
// conditional; a value read before the call and passed as an argument
// overwrites whatever was committed since that read, retried or not.
func ExecWithRetryOpts(ctx context.Context, db TxBeginner, opts []occ.Option, query string, args ...any) (pgconn.CommandTag, error) {
	s := retry.Resolve(opts)
	d, err := newPgxDriver(db, s, "ExecWithRetryOpts")
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	// A transaction per attempt, not pool.Exec: see occ.ExecWithRetryOpts.
	return retry.Run(ctx, d, s, func(tx pgx.Tx) (pgconn.CommandTag, error) {
		return tx.Exec(ctx, query, args...)
	})
}
