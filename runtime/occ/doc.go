// Package occ runs database/sql transactions under optimistic concurrency
// control (Aurora DSQL, or PostgreSQL at REPEATABLE READ or SERIALIZABLE),
// retrying the whole transaction when it loses a conflict.
//
// RunTxWithRetry begins a fresh transaction for every attempt, calls fn,
// and commits. A serialization failure (SQLSTATE 40001), whether from a
// statement or from COMMIT, rolls back, waits with capped exponential
// backoff and jitter, and runs fn again. Nothing else is retried: a
// ConditionFailedError (a compare-and-set that matched no row) means another
// writer legitimately won; 0A000 means the SQL is not supported; an error
// during COMMIT that carries no SQLSTATE leaves the outcome unknown.
//
// ExecWithRetry does the same for a single statement, which outside a
// transaction is a transaction of its own and loses conflicts just the same:
// each attempt runs it in a fresh transaction, so the retries, options, hooks
// and errors are RunTxWithRetry's. ExecWithRetryOpts takes the options, in a
// slice before the query since the statement's arguments are variadic.
//
// # fn runs more than once
//
// fn must be free of external side effects. It may run several times, and
// only the last run's database writes are kept: an email sent, a message
// published, a file written, a counter in process memory bumped, or an HTTP
// call made inside fn happens once per attempt. Do such work after
// RunTxWithRetry returns, or make it idempotent. The result of a failed
// attempt is discarded; only the committed attempt's result is returned.
//
// fn must not call Commit or Rollback (RunTxWithRetry does both), must not
// use SAVEPOINT (Aurora DSQL rejects it), and must return every error it gets
// from the transaction, wrapped with %w if at all: a 40001 that fn swallows
// or formats with %v cannot be retried.
//
// The package imports no driver. It reads SQLSTATEs through the SQLState()
// method that pgx (natively and through database/sql) and lib/pq errors have.
// For pgx's own API (pgx.Tx, *pgxpool.Pool) use package occpgx, which shares
// this package's options, hooks and errors.
package occ
