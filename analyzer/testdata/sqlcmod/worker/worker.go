// Package worker begins transactions and runs sqlc's generated queries in
// them, passing the transaction as the db argument.
package worker

import (
	"context"
	"database/sql"
	"strings"

	"example.com/sqlcmod/db/sqlcdb"
)

var q = sqlcdb.New()

// Claim locks a shard row in a transaction nothing retries.
func Claim(ctx context.Context, db *sql.DB, shard int32) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := q.LockShardRow(ctx, tx, shard); err != nil {
		return err
	}
	return tx.Commit()
}

// claimOnce is the same, re-run by ClaimWithRetry on 40001.
func claimOnce(ctx context.Context, db *sql.DB, shard int32) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := q.LockShardRetried(ctx, tx, shard); err != nil {
		return err
	}
	return tx.Commit()
}

// ClaimWithRetry re-runs claimOnce on a serialization failure.
func ClaimWithRetry(ctx context.Context, db *sql.DB, shard int32) error {
	for {
		err := claimOnce(ctx, db, shard)
		if err != nil && strings.Contains(err.Error(), "40001") {
			continue
		}
		return err
	}
}
