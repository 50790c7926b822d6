// Package occpgx runs pgx v5 transactions (on a *pgxpool.Pool or a *pgx.Conn)
// under optimistic concurrency control, retrying the whole transaction when
// it loses a conflict (SQLSTATE 40001).
//
// It is package occ for pgx's own API: the same retry loop, the same
// occ.Option values (occ.WithConfig, occ.WithOperation, occ.WithHooks), and
// the same error types (occ.ConditionFailedError, occ.RetriesExhaustedError
// and the rest). Everything occ's documentation says about fn applies here:
// fn may run more than once, so it must have no external side effects; it
// must not call Commit or Rollback; and it must return the errors it gets.
// Do not use tx.Begin inside fn: pgx implements nested transactions with
// SAVEPOINT, which Aurora DSQL rejects.
//
// ExecWithRetry (and ExecWithRetryOpts, which takes options) is
// occ.ExecWithRetry for pgx: one statement, run again in a fresh transaction
// when it loses a conflict, returning the committed attempt's
// pgconn.CommandTag.
package occpgx
