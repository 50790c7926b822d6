// Package isolationfield keeps transaction options in struct fields:
// DSQL009 where a Begin can read them.
package isolationfield

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

type writer struct {
	pool *pgxpool.Pool
	opts pgx.TxOptions
}

func newWriter(pool *pgxpool.Pool) *writer {
	return &writer{pool: pool, opts: pgx.TxOptions{IsoLevel: pgx.Serializable}} // want `DSQL009 isolation-level: IsoLevel: pgx.Serializable`
}

func (w *writer) begin(ctx context.Context) (pgx.Tx, error) { return w.pool.BeginTx(ctx, w.opts) }

// Options others may read: the field is exported.
type Config struct {
	TxOptions pgx.TxOptions
}

var Defaults = Config{TxOptions: pgx.TxOptions{IsoLevel: pgx.ReadCommitted}} // want `DSQL009 isolation-level: IsoLevel: pgx.ReadCommitted`

// Negative: options set in a field that nothing reads never reach a
// Begin.
type reader struct {
	pool      *pgxpool.Pool
	txOptions pgx.TxOptions
}

func newReader(pool *pgxpool.Pool) *reader {
	return &reader{pool: pool, txOptions: pgx.TxOptions{IsoLevel: pgx.ReadCommitted}}
}

func (r *reader) count(ctx context.Context) (n int, err error) {
	err = r.pool.QueryRow(ctx, "SELECT count(*) FROM accounts").Scan(&n)
	return n, err
}
