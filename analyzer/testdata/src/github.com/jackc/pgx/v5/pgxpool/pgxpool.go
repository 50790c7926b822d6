// Package pgxpool is a stub of github.com/jackc/pgx/v5/pgxpool for tests.
package pgxpool

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

type Pool struct{}

func (p *Pool) Begin(ctx context.Context) (pgx.Tx, error) { return nil, nil }
func (p *Pool) BeginTx(ctx context.Context, o pgx.TxOptions) (pgx.Tx, error) {
	return nil, nil
}
func (p *Pool) Exec(ctx context.Context, sql string, arguments ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, nil
}
func (p *Pool) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row { return nil }
