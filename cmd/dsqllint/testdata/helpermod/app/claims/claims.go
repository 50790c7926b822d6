// Package claims claims jobs through txpop, a retry helper that leaves
// the check for 40001 to its module's error translation layer.
package claims

import (
	"context"
	"database/sql"

	"example.com/txkit/txpop"
)

// ClaimTranslated locks the job inside txpop's retry, which tests for the
// error sqlerr makes of a 40001.
func ClaimTranslated(ctx context.Context, db *sql.DB, id int64) error {
	return txpop.Transaction(ctx, db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id)
		return err
	})
}

// ClaimTranslatedOnce locks it in a transaction nothing retries.
func ClaimTranslatedOnce(ctx context.Context, db *sql.DB, id int64) error {
	return txpop.Once(ctx, db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id)
		return err
	})
}
