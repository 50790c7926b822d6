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

// Repo runs its queries in the transaction it holds.
type Repo struct {
	tx *sql.Tx
}

// BeginRepo begins a transaction and hands it back inside a Repo.
func BeginRepo(ctx context.Context, db *sql.DB) (*Repo, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return &Repo{tx: tx}, nil
}

// LockOrder locks an order row in the Repo's transaction.
func (r *Repo) LockOrder(ctx context.Context, id int) error {
	_, err := r.tx.ExecContext(ctx, "SELECT 1 FROM orders WHERE id = $1 FOR UPDATE", id) // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at service.go:187`
	return err
}

// Commit commits the Repo's transaction.
func (r *Repo) Commit() error { return r.tx.Commit() }
