// Package txpop runs a function in a transaction, again while it fails
// with what sqlerr makes of a serialization failure: its source never
// spells the SQLSTATE.
package txpop

import (
	"context"
	"database/sql"
	"errors"

	"example.com/txkit/sqlerr"
)

// Transaction re-runs fn in a fresh transaction on sqlerr.ErrConflict().
func Transaction(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	var err error
	for range 5 {
		if err = Once(ctx, db, fn); err == nil || !errors.Is(sqlerr.Translate(err), sqlerr.ErrConflict()) {
			return err
		}
	}
	return err
}

// Once runs fn in a transaction, once.
func Once(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
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
