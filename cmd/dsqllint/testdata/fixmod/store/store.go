// Package store keeps shard ownership.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Queries, aligned as gofmt aligns them: a fix that lengthens one must
// leave the block gofmt-formatted.
const (
	readShard   = "SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE" // owner check
	purgeShards = "TRUNCATE shards"                                           // tests only
	bumpShard   = "UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3"
)

// ErrLost is returned when another owner took the shard.
var ErrLost = errors.New("shard ownership lost")

// Store is the shard store.
type Store struct{ db *sql.DB }

// Read reads a shard's range.
func (s *Store) Read(ctx context.Context, id int) (int64, error) {
	var r int64
	err := s.db.QueryRowContext(ctx, readShard, id).Scan(&r)
	return r, err
}

// Purge empties the table.
func (s *Store) Purge(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, purgeShards)
	return err
}

// Bump moves the range on, but drops the row count: the ExecCAS rewrite
// needs dsqllint's runtime, which this module does not require.
func (s *Store) Bump(ctx context.Context, tx *sql.Tx, id int, cur int64) error {
	_, err := tx.ExecContext(ctx, bumpShard, cur+1, id, cur)
	if err != nil {
		return fmt.Errorf("bump shard %d: %w", id, err)
	}
	return nil
}
