package occ

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/dsqllint/dsqllint/runtime/internal/retry"
)

// TxBeginner begins database/sql transactions. *sql.DB and *sql.Conn
// satisfy it.
type TxBeginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// RunTxWithRetry runs fn in a transaction and commits it, retrying the whole
// transaction on SQLSTATE 40001 (serialization failure, Aurora DSQL's OC000
// and OC001) with a fresh transaction for each attempt. It returns fn's result
// from the attempt that committed, or the zero T and an error.
//
// fn may run more than once, so it must have no effects outside the database
// (no messages sent, no files written, no in-memory state changed): see the
// package documentation. fn must not call Commit or Rollback, and must return
// the errors it gets rather than ignore them.
//
// Errors are returned as follows; nothing but a 40001 is retried:
//   - fn's own error, unchanged, including a *ConditionFailedError;
//   - *RetriesExhaustedError after MaxRetries+1 attempts all hit 40001;
//   - an error wrapping both ctx.Err() and the last 40001 when ctx ends
//     while waiting to retry (before the first attempt: ctx.Err() alone);
//   - *AmbiguousCommitError when COMMIT failed without a SQLSTATE, so the
//     transaction may have committed;
//   - *CommitRolledBackError when COMMIT rolled back because fn ignored an
//     error from a statement;
//   - *UnsupportedFeatureError (0A000) and *LimitExceededError (54000)
//     wrapping the driver's error with a hint;
//   - an error describing an invalid option, before any attempt.
//
// If fn panics, the transaction is rolled back and the panic continues.
func RunTxWithRetry[T any](ctx context.Context, db TxBeginner, fn func(*sql.Tx) (T, error), opts ...Option) (T, error) {
	s := retry.Resolve(opts)
	d, err := newSQLDriver(db, s, "RunTxWithRetry")
	if err != nil {
		var zero T
		return zero, err
	}
	return retry.Run(ctx, d, s, fn)
}

// RunTxWithRetryVoid is RunTxWithRetry for an fn without a result. The same
// rules apply to fn: no external side effects, no Commit or Rollback, return
// every error.
func RunTxWithRetryVoid(ctx context.Context, db TxBeginner, fn func(*sql.Tx) error, opts ...Option) error {
	_, err := RunTxWithRetry(ctx, db, func(tx *sql.Tx) (struct{}, error) {
		return struct{}{}, fn(tx)
	}, opts...)
	return err
}

// WithTxOptions sets the options each attempt's transaction begins with, for
// example a read-only transaction. Aurora DSQL accepts only its default
// isolation (REPEATABLE READ); any other level fails with 0A000.
func WithTxOptions(o *sql.TxOptions) Option {
	return func(s *retry.Settings) { s.TxOptions = o }
}

// sqlDriver adapts database/sql to the retry loop.
type sqlDriver struct {
	db   TxBeginner
	opts *sql.TxOptions
}

// newSQLDriver takes the transaction options from s, rejecting pgx's, which
// occpgx.WithTxOptions would have put there. caller names the function for
// the error.
func newSQLDriver(db TxBeginner, s *retry.Settings, caller string) (sqlDriver, error) {
	d := sqlDriver{db: db}
	switch o := s.TxOptions.(type) {
	case nil:
	case *sql.TxOptions:
		d.opts = o
	default:
		return d, fmt.Errorf("occ: %s got transaction options of type %T; use occ.WithTxOptions", caller, o)
	}
	return d, nil
}

func (d sqlDriver) Begin(ctx context.Context) (*sql.Tx, error) { return d.db.BeginTx(ctx, d.opts) }

func (sqlDriver) Commit(_ context.Context, tx *sql.Tx) error { return tx.Commit() }

func (sqlDriver) Rollback(_ context.Context, tx *sql.Tx) { _ = tx.Rollback() }

// CommitRolledBack matches by message because this package imports no driver:
// pgx says "commit unexpectedly resulted in rollback" (pgx.ErrTxCommitRollback,
// also through its database/sql driver), lib/pq "could not complete operation
// in a failed transaction".
func (sqlDriver) CommitRolledBack(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "commit unexpectedly resulted in rollback") ||
		strings.Contains(msg, "could not complete operation in a failed transaction")
}
