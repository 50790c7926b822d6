// Package worker begins transactions and runs sqlc's generated queries in
// them, passing the transaction as the db argument.
package worker

import (
	"context"
	"database/sql"
	"strings"

	"example.com/sqlcmod/db/sqlc"
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

// ClaimWithTx runs the generated query on Queries bound to the
// transaction, which nothing retries.
func ClaimWithTx(ctx context.Context, db *sql.DB, queries *sqlc.Queries, shard int32) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	qtx := queries.WithTx(tx)
	if _, err := qtx.LockShard(ctx, shard); err != nil {
		return err
	}
	return tx.Commit()
}

// The same call on Queries over the pool: the lock also runs as a
// statement of its own, and is reported once, naming the Begin above.
func ReadWithPool(ctx context.Context, db *sql.DB, shard int32) error {
	_, err := sqlc.New(db).LockShard(ctx, shard)
	return err
}

// Queries made from the pool run their lock outside any transaction.
func PeekWithPool(ctx context.Context, db *sql.DB, shard int32) error {
	queries := sqlc.New(db)
	_, err := queries.PeekShard(ctx, shard)
	return err
}

// Negative twin: re-run on a serialization failure.
func PeekWithPoolRetried(ctx context.Context, db *sql.DB, shard int32) error {
	for {
		_, err := sqlc.New(db).PeekShardRetried(ctx, shard)
		if err != nil && strings.Contains(err.Error(), "40001") {
			continue
		}
		return err
	}
}

// Peek hands the pool itself to a generated query that locks: a statement
// of its own, which nothing re-runs.
func Peek(ctx context.Context, db *sql.DB, shard int32) error {
	_, err := q.LockShardOnPool(ctx, db, shard)
	return err
}

// Negative twin: the call is re-run on a serialization failure.
func PeekRetried(ctx context.Context, db *sql.DB, shard int32) error {
	for {
		_, err := q.LockShardOnPoolRetried(ctx, db, shard)
		if err != nil && strings.Contains(err.Error(), "40001") {
			continue
		}
		return err
	}
}
