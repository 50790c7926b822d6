package occpgx

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/dsqllint/dsqllint/runtime/internal/retry"
	"github.com/dsqllint/dsqllint/runtime/occ"
)

// TxBeginner begins pgx transactions. *pgxpool.Pool and *pgx.Conn satisfy
// it.
type TxBeginner interface {
	BeginTx(ctx context.Context, txOptions pgx.TxOptions) (pgx.Tx, error)
}

// RunTxWithRetry runs fn in a transaction and commits it, retrying the whole
// transaction on SQLSTATE 40001 with a fresh transaction for each attempt. It
// returns fn's result from the attempt that committed, or the zero T and an
// error. It behaves exactly as occ.RunTxWithRetry does, with pgx's types.
//
// fn may run more than once, so it must have no effects outside the database
// (see package occ). fn must not call Commit or Rollback, must not use
// tx.Begin (a SAVEPOINT), and must return the errors it gets rather than
// ignore them: if it ignores one, COMMIT answers ROLLBACK
// (pgx.ErrTxCommitRollback) and the call fails with an
// *occ.CommitRolledBackError instead of retrying.
//
// If fn panics, the transaction is rolled back and the panic continues.
func RunTxWithRetry[T any](ctx context.Context, db TxBeginner, fn func(pgx.Tx) (T, error), opts ...occ.Option) (T, error) {
	s := retry.Resolve(opts)
	d, err := newPgxDriver(db, s, "RunTxWithRetry")
	if err != nil {
		var zero T
		return zero, err
	}
	return retry.Run(ctx, d, s, fn)
}

// RunTxWithRetryVoid is RunTxWithRetry for an fn without a result. The same
// rules apply to fn: no external side effects, no Commit or Rollback, return
// every error.
func RunTxWithRetryVoid(ctx context.Context, db TxBeginner, fn func(pgx.Tx) error, opts ...occ.Option) error {
	_, err := RunTxWithRetry(ctx, db, func(tx pgx.Tx) (struct{}, error) {
		return struct{}{}, fn(tx)
	}, opts...)
	return err
}

// WithTxOptions sets the options each attempt's transaction begins with, for
// example pgx.TxOptions{AccessMode: pgx.ReadOnly}. Aurora DSQL accepts only
// its default isolation (REPEATABLE READ); any other IsoLevel fails with
// 0A000.
func WithTxOptions(o pgx.TxOptions) occ.Option {
	return func(s *retry.Settings) { s.TxOptions = o }
}

// ExecCAS runs a conditional write, typically
//
//	UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3
//
// and requires it to affect exactly one row. Any other count returns an
// *occ.ConditionFailedError naming the query, which RunTxWithRetry never
// retries and rolls back.
func ExecCAS(ctx context.Context, tx pgx.Tx, query string, args ...any) error {
	tag, err := tx.Exec(ctx, query, args...)
	if err != nil {
		return err
	}
	if n := tag.RowsAffected(); n != 1 {
		return &occ.ConditionFailedError{Msg: retry.CASMessage(n, query)}
	}
	return nil
}

// pgxDriver adapts pgx to the retry loop.
type pgxDriver struct {
	db   TxBeginner
	opts pgx.TxOptions
}

// newPgxDriver takes the transaction options from s, rejecting
// database/sql's, which occ.WithTxOptions would have put there. caller names
// the function for the error.
func newPgxDriver(db TxBeginner, s *retry.Settings, caller string) (pgxDriver, error) {
	d := pgxDriver{db: db}
	switch o := s.TxOptions.(type) {
	case nil:
	case pgx.TxOptions:
		d.opts = o
	default:
		return d, fmt.Errorf("occ: occpgx.%s got transaction options of type %T; use occpgx.WithTxOptions", caller, o)
	}
	return d, nil
}

func (d pgxDriver) Begin(ctx context.Context) (pgx.Tx, error) { return d.db.BeginTx(ctx, d.opts) }

func (pgxDriver) Commit(ctx context.Context, tx pgx.Tx) error { return tx.Commit(ctx) }

func (pgxDriver) Rollback(ctx context.Context, tx pgx.Tx) { _ = tx.Rollback(ctx) }

func (pgxDriver) CommitRolledBack(err error) bool { return errors.Is(err, pgx.ErrTxCommitRollback) }
