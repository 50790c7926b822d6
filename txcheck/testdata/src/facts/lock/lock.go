package lock // want package:`txflow\(lock\{stmts:1 locks:1 runs:1\}\)`

// Package lock runs a lock on the transaction its caller hands it: the
// fact says so (a statement on a parameter, the lock and its run), for the
// package that begins the transaction to judge.

import (
	"context"
	"database/sql"
)

// Claim locks a shard's row on tx.
func Claim(ctx context.Context, tx *sql.Tx, shard int) error {
	_, err := tx.ExecContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", shard)
	return err
}
