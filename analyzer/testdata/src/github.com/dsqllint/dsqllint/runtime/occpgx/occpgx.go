// Package occpgx is a stub of dsqllint's runtime/occpgx for tests.
package occpgx

import (
	"context"

	"github.com/dsqllint/dsqllint/runtime/occ"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

type TxBeginner interface {
	BeginTx(context.Context, pgx.TxOptions) (pgx.Tx, error)
}

func ExecWithRetry(ctx context.Context, db TxBeginner, query string, args ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, nil
}

func ExecCAS(ctx context.Context, tx pgx.Tx, query string, args ...any) error { return nil }

func RunTxWithRetry[T any](ctx context.Context, db TxBeginner, fn func(pgx.Tx) (T, error), opts ...occ.Option) (T, error) {
	var zero T
	return zero, nil
}

func RunTxWithRetryVoid(ctx context.Context, db TxBeginner, fn func(pgx.Tx) error, opts ...occ.Option) error {
	return nil
}

func WithTxOptions(o pgx.TxOptions) occ.Option { return nil }
