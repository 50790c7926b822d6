// Package store is a MySQL persistence layer being ported: its module
// has no PostgreSQL backend, so its SQL is what is checked.
package store

import (
	"context"
	"database/sql"

	_ "github.com/go-sql-driver/mysql"
)

func Get(ctx context.Context, db *sql.DB, id string) error {
	_, err := db.ExecContext(ctx, "SELECT v FROM items WHERE id = ? FOR SHARE", id) // want `DSQL001` `DSQL005`
	return err
}
