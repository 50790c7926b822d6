// Package dbwrap hands out transactions; its callers need not import
// database/sql to use them.
package dbwrap

import (
	"context"
	"database/sql"
)

var db *sql.DB

// Begin starts a transaction.
func Begin(ctx context.Context) (*sql.Tx, error) { return db.BeginTx(ctx, nil) }
