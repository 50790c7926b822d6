// Package occ is a stub of dsqllint's runtime/occ for tests.
package occ

import (
	"context"
	"database/sql"
)

type TxBeginner interface {
	BeginTx(context.Context, *sql.TxOptions) (*sql.Tx, error)
}
type Option func()

func RunTxWithRetry[T any](ctx context.Context, db TxBeginner, fn func(*sql.Tx) (T, error), opts ...Option) (T, error) {
	var zero T
	return zero, nil
}
func RunTxWithRetryVoid(ctx context.Context, db TxBeginner, fn func(*sql.Tx) error, opts ...Option) error {
	return nil
}
func ExecCAS(ctx context.Context, tx *sql.Tx, query string, args ...any) error { return nil }
func ExecWithRetry(ctx context.Context, db TxBeginner, query string, args ...any) (sql.Result, error) {
	return nil, nil
}

func WithTxOptions(o *sql.TxOptions) Option { return nil }
