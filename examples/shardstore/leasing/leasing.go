// Package leasing renews leases in transactions it begins and hands to
// package shardstore: a cross-package DSQL005 that only the module stage
// of `dsqllint ./...` sees.
package leasing

import (
	"context"
	"database/sql"
	"errors"

	"github.com/dsqllint/dsqllint/examples/shardstore"
)

// ErrNotOwner reports a lease held by another worker.
var ErrNotOwner = errors.New("lease held by another worker")

// Renew checks that worker still holds the lease, then extends it.
func Renew(ctx context.Context, db *sql.DB, resourceID, worker string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	owner, err := shardstore.LockLease(ctx, tx, resourceID)
	if err != nil {
		return err
	}
	if owner != worker {
		return ErrNotOwner
	}
	res, err := tx.ExecContext(ctx, "UPDATE leases SET expires_at = now() + interval '30 seconds' WHERE resource_id = $1 AND worker_id = $2", resourceID, worker)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return ErrNotOwner
	}
	return tx.Commit()
}
