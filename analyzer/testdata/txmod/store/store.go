// Package store runs queries on a transaction its callers begin.
package store

import (
	"context"
	"database/sql"
)

// LockShard locks the row; whoever begins tx must retry it on 40001.
func LockShard(ctx context.Context, tx *sql.Tx, id int) (int64, error) {
	var r int64
	err := tx.QueryRowContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", id).Scan(&r) // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at service.go:18`
	return r, err
}

// LockVia reaches the lock through a helper of this package.
func LockVia(ctx context.Context, tx *sql.Tx, id int) error {
	return lockInner(ctx, tx, id)
}

func lockInner(ctx context.Context, tx *sql.Tx, id int) error {
	_, err := tx.ExecContext(ctx, "SELECT 1 FROM leases WHERE resource_id = $1 FOR UPDATE", id) // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at service.go:34`
	return err
}

// LockRetried is only reached by transactions that are retried.
func LockRetried(ctx context.Context, tx *sql.Tx, id int) error {
	_, err := tx.ExecContext(ctx, "SELECT 1 FROM workflows WHERE id = $1 FOR UPDATE", id)
	return err
}

// ReadShard reads without a lock: nothing to retry.
func ReadShard(ctx context.Context, tx *sql.Tx, id int) error {
	_, err := tx.ExecContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1", id)
	return err
}

// LockIgnored locks, and its author says why that is fine.
func LockIgnored(ctx context.Context, tx *sql.Tx, id int) error {
	//dsqllint:ignore DSQL005 -- callers run this in a job that the scheduler re-runs on any error
	_, err := tx.ExecContext(ctx, "SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE", id)
	return err
}

// LockLease locks a lease; its callers get their transaction from txutil.
func LockLease(ctx context.Context, tx *sql.Tx, id string) error {
	_, err := tx.ExecContext(ctx, "SELECT 1 FROM leases WHERE resource_id = $1 FOR UPDATE", id) // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at service.go:81`
	return err
}

// LockOwned locks a row in a transaction its caller found in the context:
// no retry is shown around it, wherever it was begun.
func LockOwned(ctx context.Context, tx *sql.Tx, id string) error {
	_, err := tx.ExecContext(ctx, "SELECT 1 FROM owners WHERE id = $1 FOR UPDATE", id) // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs on a transaction dsqllint does not trace to its Begin`
	return err
}

// BumpRange hands its compare-and-swap result back: its callers must read
// the row count.
func BumpRange(ctx context.Context, tx *sql.Tx, id int, cur int64) (sql.Result, error) {
	return tx.ExecContext(ctx, "UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3", cur+1, id, cur)
}

// LockDecorated is reached only from transactions a retry decorator re-runs.
func LockDecorated(ctx context.Context, tx *sql.Tx, id string) error {
	_, err := tx.ExecContext(ctx, "SELECT 1 FROM decorated WHERE id = $1 FOR UPDATE", id)
	return err
}

// Dialect is what differs between the databases the store runs on.
type Dialect interface {
	// LockClause is the locking clause a read-for-update ends with.
	LockClause() string
}

// Postgres locks the rows it reads for update; SQLite locks nothing.
type Postgres struct{}

func (Postgres) LockClause() string { return " FOR UPDATE" }

type SQLite struct{}

func (SQLite) LockClause() string { return "" }

// LockJob ends its read with the dialect's clause: FOR UPDATE on
// PostgreSQL.
func LockJob(ctx context.Context, tx *sql.Tx, d Dialect, id int) error {
	_, err := tx.ExecContext(ctx, "SELECT 1 FROM jobs WHERE id = $1"+d.LockClause(), id) // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at service.go:167`
	return err
}

// LockTask adds FOR UPDATE when asked.
func LockTask(ctx context.Context, tx *sql.Tx, id int, forUpdate bool) error {
	q := "SELECT state FROM tasks WHERE id = $1"
	if forUpdate {
		q += " FOR UPDATE"
	}
	_, err := tx.ExecContext(ctx, q, id) // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at service.go:167`
	return err
}

// ReadTask adds only an ORDER BY: nothing locked.
func ReadTask(ctx context.Context, tx *sql.Tx, id int, ordered bool) error {
	q := "SELECT state FROM tasks WHERE id = $1"
	if ordered {
		q += " ORDER BY id"
	}
	_, err := tx.ExecContext(ctx, q, id)
	return err
}

// fetchJobs locks in a CTE and writes, one statement on the pool.
const fetchJobs = "WITH n AS (SELECT id FROM jobs WHERE state = 'available' LIMIT 1 FOR UPDATE) UPDATE jobs SET state = 'running' FROM n WHERE jobs.id = n.id" // want `DSQL005 lock-without-retry: this statement locks FOR UPDATE outside any transaction`

// FetchJob runs it outside any transaction: whether it is retried is for
// its callers to say.
func FetchJob(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, fetchJobs)
	return err
}

// FetchJobRetried is the same statement, and its one caller re-runs it on
// 40001.
func FetchJobRetried(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, "WITH n AS (SELECT id FROM jobs WHERE state = 'available' LIMIT 2 FOR UPDATE) UPDATE jobs SET state = 'running' FROM n WHERE jobs.id = n.id")
	return err
}
