// Package txkit runs transactions for the services of the repository.
package txkit

import (
	"context"
	"database/sql"
	"strings"
)

// InTx runs fn in a transaction, again when it loses a conflict
// (SQLSTATE 40001).
func InTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	for {
		err := once(ctx, db, fn)
		if err == nil || !strings.Contains(err.Error(), "40001") {
			return err
		}
	}
}

func once(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// LockRow locks a job's row in the caller's transaction.
func LockRow(ctx context.Context, tx *sql.Tx, id int64) error {
	_, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id)
	return err
}
