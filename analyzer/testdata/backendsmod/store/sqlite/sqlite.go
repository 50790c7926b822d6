// Package sqlite is a SQLite backend beside the PostgreSQL one.
package sqlite

import (
	"context"
	"database/sql"

	_ "modernc.org/sqlite"
)

func Compact(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM items"); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, "VACUUM")
	return err
}
