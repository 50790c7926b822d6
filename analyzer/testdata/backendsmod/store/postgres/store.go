// Package postgres is the module's PostgreSQL backend: what it ports.
package postgres

import (
	"context"
	"database/sql"

	_ "github.com/jackc/pgx/v5/stdlib"
)

func Get(ctx context.Context, db *sql.DB, id string) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable}) // want `DSQL009`
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, "SELECT v FROM items WHERE id = $1 FOR SHARE", id).Scan(&v); err != nil { // want `DSQL001` `DSQL005`
		return err
	}
	return tx.Commit()
}
