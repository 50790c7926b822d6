// Package jobs claims jobs.
package jobs

import (
	"context"
	"database/sql"

	"example.com/fixmod/store"
)

// Claim reads a job under a MySQL-style shared lock.
func Claim(ctx context.Context, db *sql.DB, s *store.Store, id int) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var state string
	if err := tx.QueryRowContext(ctx, `SELECT state FROM jobs WHERE id = $1 LOCK IN SHARE MODE`, id).Scan(&state); err != nil {
		return err
	}
	if _, err := s.Read(ctx, 1); err != nil {
		return err
	}
	return tx.Commit()
}
