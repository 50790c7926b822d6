// Package store locks rows inside the transactions txkit runs.
package store

import (
	"context"
	"database/sql"

	"sentinelmod/txkit"
)

// Quiet: Transaction re-runs it on the error a 40001 becomes.
func Claim(ctx context.Context, db *sql.DB, id int) error {
	return txkit.Transaction(ctx, db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id)
		return err
	})
}

// Quiet: Aborting compares with the variable a 40001 becomes.
func ClaimAborting(ctx context.Context, db *sql.DB, id int) error {
	return txkit.Aborting(ctx, db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id)
		return err
	})
}

// Reported: UnlessMissing's error is no serialization failure's.
func ClaimUnlessMissing(ctx context.Context, db *sql.DB, id int) error {
	return txkit.UnlessMissing(ctx, db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id) // want `DSQL005 lock-without-retry: SELECT \.\.\. FOR UPDATE runs in the transaction begun at txkit.go:15, which nothing retries`
		return err
	})
}

// Reported: nor is Deduplicating's.
func ClaimDeduplicating(ctx context.Context, db *sql.DB, id int) error {
	return txkit.Deduplicating(ctx, db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id) // want `DSQL005 lock-without-retry: SELECT \.\.\. FOR UPDATE runs in the transaction begun at txkit.go:15, which nothing retries`
		return err
	})
}

// Quiet: Scoped's literal, called inside its loop, begins the transaction.
func ClaimScoped(ctx context.Context, db *sql.DB, id int) error {
	return txkit.Scoped(ctx, db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id)
		return err
	})
}
