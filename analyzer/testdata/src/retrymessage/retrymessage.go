// Package retrymessage retries on a serialization failure it recognises
// by PostgreSQL's message text, which Aurora DSQL's 40001 does not carry.
package retrymessage

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// isConflict reads PostgreSQL's wording only.
func isConflict(err error) bool {
	return err != nil && strings.Contains(err.Error(), "could not serialize access") // want `DSQL012 conflict-by-message: this test for a serialization failure reads PostgreSQL's wording of the error, which Aurora DSQL's does not use`
}

func claim(ctx context.Context, db *sql.DB, id string) (err error) {
	for attempt := 0; attempt < 3; attempt++ {
		if err = claimOnce(ctx, db, id); err == nil || !isConflict(err) {
			return err
		}
	}
	return err
}

func claimOnce(ctx context.Context, db *sql.DB, id string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var owner string
	if err := tx.QueryRowContext(ctx, "SELECT owner FROM jobs WHERE id = $1 FOR UPDATE", id).Scan(&owner); err != nil { // want `DSQL005 lock-without-retry`
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE jobs SET owner = $1 WHERE id = $2", "me", id); err != nil {
		return err
	}
	return tx.Commit()
}

// Negative: the SQLSTATE is tested too.
type sqlState interface{ SQLState() string }

func isConflictCode(err error) bool {
	var e sqlState
	if errors.As(err, &e) && e.SQLState() == "40001" {
		return true
	}
	return strings.Contains(err.Error(), "could not serialize")
}

func release(ctx context.Context, db *sql.DB, id string) (err error) {
	for attempt := 0; attempt < 3; attempt++ {
		if err = releaseOnce(ctx, db, id); err == nil || !isConflictCode(err) {
			return err
		}
	}
	return err
}

func releaseOnce(ctx context.Context, db *sql.DB, id string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var owner string
	if err := tx.QueryRowContext(ctx, "SELECT owner FROM jobs WHERE id = $1 FOR UPDATE", id).Scan(&owner); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE jobs SET owner = NULL WHERE id = $1", id); err != nil {
		return err
	}
	return tx.Commit()
}
