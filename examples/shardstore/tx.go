package shardstore

import (
	"context"
	"database/sql"
)

// WriteLockShard locks the shard row in a transaction it begins itself and
// never retries. DSQL005: on DSQL the FOR UPDATE does not block; the loser
// fails at COMMIT with 40001 and nothing runs it again.
func (s *Store) WriteLockShard(ctx context.Context, shardID int) (int64, error) {
	// DSQL009: DSQL runs every transaction at REPEATABLE READ and rejects
	// a request for SERIALIZABLE.
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var rangeID int64
	if err := tx.QueryRowContext(ctx, writeLockShardQuery, shardID).Scan(&rangeID); err != nil {
		return 0, err
	}
	// DSQL004: a lost compare-and-swap affects no row and returns no error;
	// discarding the result makes it look like success.
	if _, err := tx.ExecContext(ctx, casRangeQuery, rangeID+1, shardID, rangeID); err != nil {
		return 0, err
	}
	return rangeID + 1, tx.Commit()
}

// Checkpoint marks a point to roll back to. DSQL010: DSQL has no savepoints.
func Checkpoint(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "SAVEPOINT before_renew")
	return err
}

// LockLease locks a lease row in the caller's transaction. Whoever begins
// that transaction must retry it on 40001: package leasing does not, so
// the module stage reports DSQL005 here, naming its Begin.
func LockLease(ctx context.Context, tx *sql.Tx, resourceID string) (string, error) {
	var owner string
	err := tx.QueryRowContext(ctx, "SELECT worker_id FROM leases WHERE resource_id = $1 FOR UPDATE", resourceID).Scan(&owner)
	return owner, err
}
