package uncheckedcas

import (
	"context"
	"database/sql"
	"errors"
)

// A sharded driver: the query comes after the shard, fourth or third.
type shardedDB interface {
	GetContext(ctx context.Context, dbShardID int, dest any, query string, args ...any) error
	ExecContext(ctx context.Context, dbShardID int, query string, args ...any) (sql.Result, error)
}

// Two implementations: every shard on one pool, or a pool per shard.
type singleDB struct{ db *sql.DB }

func (s *singleDB) GetContext(ctx context.Context, dbShardID int, dest any, query string, args ...any) error {
	return s.db.QueryRowContext(ctx, query, args...).Scan(dest)
}

func (s *singleDB) ExecContext(ctx context.Context, dbShardID int, query string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, query, args...)
}

type shardedPools struct{ pools []*sql.DB }

func (s *shardedPools) GetContext(ctx context.Context, dbShardID int, dest any, query string, args ...any) error {
	return s.pools[dbShardID].QueryRowContext(ctx, query, args...).Scan(dest)
}

func (s *shardedPools) ExecContext(ctx context.Context, dbShardID int, query string, args ...any) (sql.Result, error) {
	return s.pools[dbShardID].ExecContext(ctx, query, args...)
}

func updateShard(ctx context.Context, db shardedDB, shard int) error {
	_, err := db.ExecContext(ctx, shard, casShard, 2, shard, 1) // want `DSQL004 unchecked-cas: the result of this compare-and-swap write is discarded`
	return err
}

// Negative twin: the row count is checked.
func updateShardChecked(ctx context.Context, db shardedDB, shard int) error {
	res, err := db.ExecContext(ctx, shard, casShard, 2, shard, 1)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return errors.New("shard moved")
	}
	return nil
}
