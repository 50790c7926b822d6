// Package store locks rows on the transaction its callers hand it: it
// begins none, so what it locks is judged where they begin theirs.
package store

import (
	"context"
	"database/sql"
	"errors"
)

// LockShard locks a shard's row on the caller's transaction.
func LockShard(ctx context.Context, tx *sql.Tx, id int) (int64, error) {
	var rangeID int64
	err := tx.QueryRowContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", id).Scan(&rangeID)
	return rangeID, err
}

// SetRange writes the shard's range on the caller's transaction.
func SetRange(ctx context.Context, tx *sql.Tx, id int, rangeID int64) error {
	res, err := tx.ExecContext(ctx, "UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3", rangeID+1, id, rangeID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return errors.New("lost the shard")
	}
	return nil
}

// LockQueue locks a queue's row on the caller's transaction.
func LockQueue(ctx context.Context, tx *sql.Tx, id int) error {
	_, err := tx.ExecContext(ctx, "SELECT id FROM queues WHERE id = $1 FOR UPDATE", id)
	return err
}
