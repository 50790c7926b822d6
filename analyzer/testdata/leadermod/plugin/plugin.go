// Package plugin is a persistence plugin whose methods run on the
// transaction the service hands them (the seed's ReadLockShards).
package plugin

import (
	"context"
	"database/sql"
)

// ReadLockShard reads the shard's range_id, its fence token, FOR SHARE.
func ReadLockShard(ctx context.Context, tx *sql.Tx, shard int) (int64, error) {
	var rangeID int64
	err := tx.QueryRowContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE", shard).Scan(&rangeID) // want `DSQL001 share-lock`
	return rangeID, err
}

// WriteLockShard locks the shard FOR UPDATE.
func WriteLockShard(ctx context.Context, tx *sql.Tx, shard int) (int64, error) {
	var rangeID int64
	err := tx.QueryRowContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", shard).Scan(&rangeID)
	return rangeID, err
}

// UpdateExecution writes an execution by key: the shard's token read FOR
// SHARE before it in the service's transaction was its only fence.
func UpdateExecution(ctx context.Context, tx *sql.Tx, shard int, run string, next int64) error {
	_, err := tx.ExecContext(ctx, "UPDATE executions SET next_event_id = $1 WHERE shard_id = $2 AND run_id = $3", next, shard, run) // want `DSQL003 unfenced-write: this UPDATE runs in the transaction that read shards.range_id FOR SHARE at plugin/plugin.go:13`
	return err
}

// UpdateCurrent runs only after the shard's FOR UPDATE: quiet.
func UpdateCurrent(ctx context.Context, tx *sql.Tx, shard int, workflow, run string) error {
	_, err := tx.ExecContext(ctx, "UPDATE current_executions SET run_id = $1 WHERE shard_id = $2 AND workflow_id = $3", run, shard, workflow)
	return err
}

// CompleteExecution runs in the transaction Store.shardLocked begins, reached
// through a field holding a method value.
func CompleteExecution(ctx context.Context, tx *sql.Tx, shard int, run string) error {
	_, err := tx.ExecContext(ctx, "UPDATE executions SET next_event_id = 0 WHERE shard_id = $1 AND run_id = $2", shard, run) // want `DSQL003 unfenced-write: this UPDATE runs in the transaction that read shards.range_id FOR SHARE at plugin/plugin.go:13`
	return err
}
