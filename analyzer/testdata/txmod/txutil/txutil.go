// Package txutil begins transactions for its callers, as many code bases'
// PrepareTx helpers do.
package txutil

import (
	"context"
	"database/sql"
)

type key struct{}

// Begin begins a transaction and hands it back with its commit.
func Begin(ctx context.Context, db *sql.DB) (*sql.Tx, func() error, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	return tx, tx.Commit, nil
}

// Current returns a transaction someone else began: not one of ours.
func Current(ctx context.Context) *sql.Tx {
	tx, _ := ctx.Value(key{}).(*sql.Tx)
	return tx
}
