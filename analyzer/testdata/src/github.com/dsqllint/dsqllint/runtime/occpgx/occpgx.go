// Package occpgx is a stub of dsqllint's runtime/occpgx for tests.
package occpgx

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

type TxBeginner interface {
	Begin(context.Context) (pgx.Tx, error)
}

func ExecWithRetry(ctx context.Context, db TxBeginner, query string, args ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, nil
}

func ExecCAS(ctx context.Context, tx pgx.Tx, query string, args ...any) error { return nil }
