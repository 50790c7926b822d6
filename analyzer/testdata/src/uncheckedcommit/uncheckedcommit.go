// Package uncheckedcommit drops the error of a writing transaction's
// Commit: DSQL011.
package uncheckedcommit

import (
	"context"
	"database/sql"
)

func deferred(ctx context.Context, db *sql.DB, id string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Commit() // want `DSQL011 unchecked-commit: the error of this Commit is dropped by defer, and the transaction writes \(UPDATE at uncheckedcommit.go:16\): on Aurora DSQL a write that conflicts with another transaction's fails here, at COMMIT`
	_, err = tx.ExecContext(ctx, "UPDATE accounts SET balance = balance - 10 WHERE id = $1", id)
	return err
}

func statement(ctx context.Context, db *sql.DB, id string) {
	tx, _ := db.BeginTx(ctx, nil)
	tx.ExecContext(ctx, "DELETE FROM sessions WHERE id = $1", id)
	tx.Commit() // want `DSQL011 unchecked-commit: the error of this Commit is dropped, and the transaction writes \(DELETE at uncheckedcommit.go:22\)`
}

func blank(ctx context.Context, db *sql.DB, id string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := insertAudit(ctx, tx, id); err != nil {
		tx.Rollback()
		return err
	}
	_ = tx.Commit() // want `DSQL011 unchecked-commit: the error of this Commit is assigned to _, and the transaction writes \(INSERT that insertAudit runs on it, at uncheckedcommit.go:40\)`
	return nil
}

func insertAudit(ctx context.Context, tx *sql.Tx, id string) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO audit (id, at) VALUES ($1, now())", id)
	return err
}

// Negatives.

func returned(ctx context.Context, db *sql.DB, id string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE accounts SET balance = 0 WHERE id = $1", id); err != nil {
		return err
	}
	return tx.Commit()
}

func checked(ctx context.Context, db *sql.DB, id string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	tx.ExecContext(ctx, "UPDATE accounts SET balance = 0 WHERE id = $1", id)
	if err := tx.Commit(); err != nil {
		return err
	}
	return nil
}

// A transaction that only reads loses nothing when its Commit fails.
func readOnly(ctx context.Context, db *sql.DB) (n int) {
	tx, _ := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	defer tx.Commit()
	tx.QueryRowContext(ctx, "SELECT count(*) FROM accounts").Scan(&n)
	return n
}

// The error kept for the caller through a named result.
func named(ctx context.Context, db *sql.DB, id string) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
			return
		}
		err = tx.Commit()
	}()
	_, err = tx.ExecContext(ctx, "DELETE FROM sessions WHERE id = $1", id)
	return err
}

// A query variable assigned again in its own block holds the new text
// from there on; assigned in a branch, it holds either.
func reassigned(ctx context.Context, db *sql.DB, id string) {
	tx, _ := db.BeginTx(ctx, nil)
	query := "SELECT count(*) FROM categories WHERE user_id = $1"
	var n int
	tx.QueryRowContext(ctx, query, id).Scan(&n)
	query = "DELETE FROM categories WHERE user_id = $1"
	tx.ExecContext(ctx, query, id)
	tx.Commit() // want `DSQL011 unchecked-commit: the error of this Commit is dropped, and the transaction writes \(DELETE at uncheckedcommit.go:102\)`
}

func branch(ctx context.Context, db *sql.DB, id string, purge bool) {
	tx, _ := db.BeginTx(ctx, nil)
	query := "SELECT count(*) FROM categories WHERE user_id = $1"
	if purge {
		query = "DELETE FROM categories WHERE user_id = $1"
	}
	tx.ExecContext(ctx, query, id)
	tx.Commit()
}

// A Commit in the branch that found nothing to write ends a read; the one
// after the write is what loses it.
func sweep(ctx context.Context, db *sql.DB, ids []string) {
	tx, _ := db.BeginTx(ctx, nil)
	var n int
	tx.QueryRowContext(ctx, "SELECT count(*) FROM runs WHERE status = 'stale'").Scan(&n)
	if n == 0 {
		_ = tx.Commit()
		return
	}
	tx.ExecContext(ctx, "UPDATE runs SET to_delete = true WHERE status = 'stale'")
	_ = tx.Commit() // want `DSQL011 unchecked-commit: the error of this Commit is assigned to _, and the transaction writes \(UPDATE at uncheckedcommit.go:127\)`
}

func sweepChecked(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	var n int
	tx.QueryRowContext(ctx, "SELECT count(*) FROM runs WHERE status = 'stale'").Scan(&n)
	if n == 0 {
		_ = tx.Commit() // ends a read
		return nil
	}
	if _, err := tx.ExecContext(ctx, "UPDATE runs SET to_delete = true WHERE status = 'stale'"); err != nil {
		return err
	}
	return tx.Commit()
}
