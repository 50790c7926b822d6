// Package store claims jobs.
package store

import (
	"context"
	"database/sql"

	"example.com/txkit"
)

// Claim locks the job inside txkit's retry.
func Claim(ctx context.Context, db *sql.DB, id int64) error {
	return txkit.InTx(ctx, db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id)
		return err
	})
}

// ClaimOnce locks the job in a transaction nothing retries.
func ClaimOnce(ctx context.Context, db *sql.DB, id int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id); err != nil {
		return err
	}
	return tx.Commit()
}

// Touch has txkit lock the job inside txkit's retry.
func Touch(ctx context.Context, db *sql.DB, id int64) error {
	return txkit.InTx(ctx, db, func(tx *sql.Tx) error { return txkit.LockRow(ctx, tx, id) })
}

// TouchOnce has txkit lock the job in a transaction nothing retries.
func TouchOnce(ctx context.Context, db *sql.DB, id int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := txkit.LockRow(ctx, tx, id); err != nil {
		return err
	}
	return tx.Commit()
}
