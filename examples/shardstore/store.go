package shardstore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
)

//go:embed queries/*.sql
var Queries embed.FS

const lockShardBase = "SELECT range_id FROM shards WHERE shard_id = $1"

const (
	// DSQL001: Aurora DSQL rejects FOR SHARE.
	readLockShardQuery  = lockShardBase + " FOR SHARE"
	writeLockShardQuery = lockShardBase + " FOR UPDATE"

	// DSQL002: the MySQL spelling of the same read lock, kept from a port.
	readLockShardMySQL = "SELECT range_id FROM shards WHERE shard_id = ? LOCK IN SHARE MODE"

	// DSQL003: bumps range_id without checking the caller still owns it.
	bumpRangeQuery = "UPDATE shards SET range_id = range_id + 1 WHERE shard_id = $1"

	// Fenced: compare-and-swap on range_id. Quiet.
	casRangeQuery = "UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3"
)

// ErrConditionFailed reports a lost compare-and-swap.
var ErrConditionFailed = errors.New("shard ownership lost")

// Store reads and writes shard rows.
type Store struct{ db *sql.DB }

// ReadLockShard reads the range id under a share lock.
func (s *Store) ReadLockShard(ctx context.Context, shardID int) (int64, error) {
	var rangeID int64
	err := s.db.QueryRowContext(ctx, readLockShardQuery, shardID).Scan(&rangeID)
	return rangeID, err
}

// RenewShard locks the row, then writes it by key: the lock fences the write.
func (s *Store) RenewShard(ctx context.Context, tx *sql.Tx, shardID int) error {
	var rangeID int64
	if err := tx.QueryRowContext(ctx, writeLockShardQuery, shardID).Scan(&rangeID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE shards SET range_id = $1 WHERE shard_id = $2", rangeID+1, shardID)
	return err
}

// StealShard writes without any lock or fence.
func (s *Store) StealShard(ctx context.Context, shardID int) error {
	_, err := s.db.ExecContext(ctx, bumpRangeQuery, shardID)
	return err
}

// UpdateRange moves the range id with a compare-and-swap.
func (s *Store) UpdateRange(ctx context.Context, shardID int, from, to int64) error {
	res, err := s.db.ExecContext(ctx, casRangeQuery, to, shardID, from)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return ErrConditionFailed
	}
	return nil
}

// MySQLQueries lists queries kept from the MySQL version of the store.
var MySQLQueries = []string{readLockShardMySQL}
