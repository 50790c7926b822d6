// Package mysql is the same store for MySQL: it never runs on DSQL.
package mysql

import (
	"context"
	"database/sql"

	_ "github.com/go-sql-driver/mysql"
)

func Get(ctx context.Context, db *sql.DB, id string) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, "SELECT v FROM items WHERE id = ? FOR SHARE", id).Scan(&v); err != nil {
		return err
	}
	return tx.Commit()
}
