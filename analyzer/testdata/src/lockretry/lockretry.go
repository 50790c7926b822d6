package lockretry

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/cockroachdb/cockroach-go/v2/crdb"
	"github.com/dsqllint/dsqllint/runtime/occ"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A lock text declared once and run by several functions is one lock,
// reported once, at the constant, when one of them runs it unretried.
const lockShard = "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE" // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at beginfunc.go:14`

// Quiet: a lock text every function that runs it retries.
const lockShardRetried = "SELECT range_id FROM shards WHERE shard_id = $1 AND range_id > 0 FOR UPDATE"

// WriteLockShards as ported: FOR UPDATE in a transaction nothing retries.
func writeLockShards(ctx context.Context, db *sql.DB, shardID int) (int64, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var rangeID int64
	if err := tx.QueryRowContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", shardID).Scan(&rangeID); err != nil { // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at lockretry.go:24, which nothing retries on SQLSTATE 40001; .* occ.RunTxWithRetry`
		return 0, err
	}
	return rangeID, tx.Commit()
}

// The FOR UPDATE runs in a helper the transaction is passed to.
func lockTaskQueue(ctx context.Context, pool *pgxpool.Pool, hash, id int) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := readQueue(ctx, tx, hash, id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func readQueue(ctx context.Context, tx pgx.Tx, hash, id int) error {
	var rangeID int64
	return tx.QueryRow(ctx, "SELECT range_id FROM task_queues WHERE range_hash = $1 AND task_queue_id = $2 FOR UPDATE", hash, id).Scan(&rangeID) // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at lockretry.go:38, .* occpgx.RunTxWithRetry`
}

func lockNamespace(ctx context.Context, db *sql.DB) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	if err := lockNamespaceRow(ctx, tx, 1); err != nil {
		return err
	}
	return tx.Commit()
}

func lockNamespaceRow(ctx context.Context, tx *sql.Tx, partition int) error {
	var v int64
	return tx.QueryRowContext(ctx, "SELECT notification_version FROM namespace_metadata WHERE partition_id = $1 FOR UPDATE", partition).Scan(&v) // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at lockretry.go:55`
}

// A read, then a fenced write, in an unretried transaction.
func readModifyWrite(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	var rangeID int64
	tx.QueryRowContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1", 1).Scan(&rangeID)
	res, err := tx.ExecContext(ctx, "UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3", rangeID+1, 1, rangeID) // want `DSQL005 lock-without-retry: this read-modify-write runs in the transaction`
	if err != nil {
		return err
	}
	res.RowsAffected()
	return tx.Commit()
}

// Negatives.

// Inside occ.RunTxWithRetry: the transaction is the helper's, and retried.
func retried(ctx context.Context, db *sql.DB) (int64, error) {
	return occ.RunTxWithRetry(ctx, db, func(tx *sql.Tx) (int64, error) {
		var rangeID int64
		err := tx.QueryRowContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", 1).Scan(&rangeID)
		if err != nil {
			return 0, err
		}
		err = tx.QueryRowContext(ctx, lockShardRetried, 1).Scan(&rangeID)
		return rangeID, err
	})
}

// cockroach-go's crdb.ExecuteTx retries too.
func crdbRetried(ctx context.Context, db *sql.DB) error {
	return crdb.ExecuteTx(ctx, db, nil, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, lockShardRetried, 1).Err(); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, lockShard, 1).Err(); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", 1).Err()
	})
}

// A hand-written loop that re-runs the transaction on 40001.
func loopRetried(ctx context.Context, db *sql.DB) error {
	for attempt := 0; attempt < 5; attempt++ {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		tx.QueryRowContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", 1)
		err = tx.Commit()
		if err != nil && strings.Contains(err.Error(), "40001") {
			continue
		}
		return err
	}
	return errors.New("too many conflicts")
}

// The caller's loop retries: transferOnce begins, runTransfer retries it.
func transferOnce(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	tx.QueryRowContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", 1)
	return tx.Commit()
}

func runTransfer(ctx context.Context, db *sql.DB) error {
	for {
		err := transferOnce(ctx, db)
		if isSerializationFailure(err) {
			continue
		}
		return err
	}
}

func isSerializationFailure(err error) bool { return err != nil }

// A transaction received from an unknown caller may be retried there: the
// package alone cannot tell (the module stage judges it).
func fromCaller(ctx context.Context, tx *sql.Tx) error {
	return tx.QueryRowContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", 1).Err()
}

// No FOR UPDATE: nothing to retry for this rule.
func plainRead(ctx context.Context, db *sql.DB) error {
	tx, _ := db.BeginTx(ctx, nil)
	tx.QueryRowContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1", 1)
	return tx.Commit()
}

// A module-local retry helper, recognised by what its body does: it
// re-runs its function argument when the error is a serialization failure.
func withConflictRetry(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		if isSerializationFailure(err) {
			continue
		}
		return err
	}
}

// Quiet: begun inside a closure the helper re-runs on 40001.
func lockViaHelper(ctx context.Context, db *sql.DB) error {
	return withConflictRetry(ctx, func() error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", 1); err != nil {
			return err
		}
		return tx.Commit()
	})
}

// The trap: a wrapper whose predicate matches only broken connections
// never re-runs a lost conflict.
func retryTransient(ctx context.Context, fn func() error) error {
	for i := 0; ; i++ {
		err := fn()
		if isConnectionError(err) && i < 3 {
			continue
		}
		return err
	}
}

func isConnectionError(err error) bool { return errors.Is(err, sql.ErrConnDone) }

func lockViaTransient(ctx context.Context, db *sql.DB) error {
	return retryTransient(ctx, func() error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", 2); err != nil { // want `DSQL005 lock-without-retry`
			return err
		}
		return tx.Commit()
	})
}
