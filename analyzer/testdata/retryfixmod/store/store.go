// Package store moves items, each in a transaction that locks the item.
package store

import (
	"context"
	"database/sql"

	"example.com/retryfixmod/audit"
)

func Move(ctx context.Context, db *sql.DB, id, to int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM items WHERE id = $1 FOR UPDATE", id); err != nil { // want `DSQL005 .*\(-fix runs the transaction of store.Move in the retry helper\)`
		return err
	}
	if err := audit.Note(ctx, tx, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE items SET shelf = $1 WHERE id = $2", to, id); err != nil {
		return err
	}
	return tx.Commit()
}

func Take(ctx context.Context, db *sql.DB, id int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM items WHERE id = $1 FOR UPDATE", id); err != nil { // want `DSQL005 .*\(no -fix: line 38 calls audit.Notify between Begin and Commit: a retry would repeat it, and dsqllint cannot show it has no effect outside the transaction\)`
		return err
	}
	audit.Notify(id)
	if _, err := tx.ExecContext(ctx, "DELETE FROM items WHERE id = $1", id); err != nil {
		return err
	}
	return tx.Commit()
}
