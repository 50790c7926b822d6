// Package pgx is a stub of github.com/jackc/pgx/v5 for tests.
package pgx

import (
	"context"

	"github.com/jackc/pgx/v5/pgconn"
)

type Row interface{ Scan(dest ...any) error }
type Rows interface{ Close() }

type Tx interface {
	Begin(ctx context.Context) (Tx, error)
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
	Exec(ctx context.Context, sql string, arguments ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) Row
}

type TxIsoLevel string

const (
	Serializable    TxIsoLevel = "serializable"
	RepeatableRead  TxIsoLevel = "repeatable read"
	ReadCommitted   TxIsoLevel = "read committed"
	ReadUncommitted TxIsoLevel = "read uncommitted"
)

type TxOptions struct {
	IsoLevel   TxIsoLevel
	AccessMode string
}

type Conn struct{}

func (c *Conn) Begin(ctx context.Context) (Tx, error)                { return nil, nil }
func (c *Conn) BeginTx(ctx context.Context, o TxOptions) (Tx, error) { return nil, nil }

func (c *Conn) Exec(ctx context.Context, sql string, arguments ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, nil
}
func (c *Conn) QueryRow(ctx context.Context, sql string, args ...any) Row { return nil }

type Batch struct{}

func (b *Batch) Queue(query string, arguments ...any) {}

func BeginFunc(ctx context.Context, db interface {
	Begin(ctx context.Context) (Tx, error)
}, fn func(Tx) error) error {
	return nil
}

func BeginTxFunc(ctx context.Context, db interface {
	BeginTx(ctx context.Context, txOptions TxOptions) (Tx, error)
}, txOptions TxOptions, fn func(Tx) error) error {
	return nil
}
