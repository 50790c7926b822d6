// Package svc begins the transactions store's locks run in.
package svc

import (
	"context"
	"database/sql"

	"crossmod/retry"
	"crossmod/store"
)

// Advance as ported: the lock of another package, in a transaction begun
// here outside any retry, is reported here, naming the lock.
func Advance(ctx context.Context, db *sql.DB, id int) error {
	tx, err := db.BeginTx(ctx, nil) // want `DSQL005 lock-without-retry: SELECT \.\.\. FOR UPDATE at store.go:14 runs in the transaction begun at svc.go:15, which nothing retries`
	if err != nil {
		return err
	}
	defer tx.Rollback()
	rangeID, err := store.LockShard(ctx, tx, id)
	if err != nil {
		return err
	}
	if err := store.SetRange(ctx, tx, id, rangeID); err != nil {
		return err
	}
	return tx.Commit()
}

// Its twin, quiet: the transaction begins inside the closure another
// package's retry helper re-runs on 40001.
func AdvanceRetried(ctx context.Context, db *sql.DB, id int) error {
	return retry.Do(ctx, func() error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		rangeID, err := store.LockShard(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := store.SetRange(ctx, tx, id, rangeID); err != nil {
			return err
		}
		return tx.Commit()
	})
}

// Quiet: the closure is handed to InTx, which hands it on to Once inside
// its retry; Once begins the transaction the lock runs in.
func DrainInTx(ctx context.Context, db *sql.DB, id int) error {
	return retry.InTx(ctx, db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT id FROM drains WHERE id = $1 FOR UPDATE", id)
		return err
	})
}

// Its twin, reported where the chain is complete: the closure is handed
// straight to Once, which nothing retries.
func DrainOnce(ctx context.Context, db *sql.DB, id int) error {
	return retry.Once(ctx, db, func(tx *sql.Tx) error { return store.LockQueue(ctx, tx, id) }) // want `DSQL005 lock-without-retry: SELECT \.\.\. FOR UPDATE at store.go:32 runs in the transaction begun at retry.go:\d+, which nothing retries`
}
