package occpgx_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dsqllint/dsqllint/runtime/occ"
	"github.com/dsqllint/dsqllint/runtime/occpgx"
)

// Take over a shard by advancing its fencing token: a conflict is retried, a
// lost race is reported.
func ExampleRunTxWithRetry() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	const shardID = 7

	rangeID, err := occpgx.RunTxWithRetry(ctx, pool, func(tx pgx.Tx) (int64, error) {
		// Only database work in here: this function may run several times.
		var rangeID int64
		if err := tx.QueryRow(ctx, "SELECT range_id FROM shards WHERE shard_id = $1", shardID).Scan(&rangeID); err != nil {
			return 0, err
		}
		err := occpgx.ExecCAS(ctx, tx,
			"UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3",
			rangeID+1, shardID, rangeID)
		return rangeID + 1, err
	}, occ.WithOperation("AcquireShard"))

	switch {
	case occ.IsConditionFailedError(err):
		fmt.Println("another host took the shard first")
	case err != nil:
		log.Fatal(err)
	default:
		fmt.Println("own shard with range_id", rangeID)
	}
}

func ExampleRunTxWithRetryVoid() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	err = occpgx.RunTxWithRetryVoid(ctx, pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO task_queue (queue, task_id) VALUES ($1, $2)", "default", 42)
		return err
	}, occ.WithOperation("Enqueue"))
	if err != nil {
		log.Fatal(err)
	}
}

// A single statement outside a transaction is a transaction of its own, and
// on Aurora DSQL it loses a conflict with SQLSTATE 40001 like any other.
// ExecWithRetry runs it again.
func ExampleExecWithRetry() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	// The new value is computed in SQL from the row the statement reads, so
	// a retry, on a fresh snapshot, adds one to the latest value.
	tag, err := occpgx.ExecWithRetry(ctx, pool, "UPDATE counters SET n = n + 1 WHERE id = $1", 1)
	if err != nil {
		log.Fatal(err)
	}
	if tag.RowsAffected() == 0 {
		fmt.Println("no counter 1")
	}
}

// Options go in a slice before the query, since the statement's arguments
// are variadic.
func ExampleExecWithRetryOpts() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	opts := []occ.Option{occ.WithOperation("ClaimTask")} // build once, reuse for every call

	tag, err := occpgx.ExecWithRetryOpts(ctx, pool, opts,
		`WITH t AS (SELECT task_id FROM tasks WHERE queue = $1 AND owner IS NULL ORDER BY task_id LIMIT 1 FOR UPDATE)
		 UPDATE tasks SET owner = $2 FROM t WHERE tasks.task_id = t.task_id`,
		"default", "worker-7")
	if err != nil {
		log.Fatal(err)
	}
	if tag.RowsAffected() == 1 {
		fmt.Println("claimed a task") // side effects go after the call
	}
}

func ExampleWithTxOptions() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	readOnly := occpgx.WithTxOptions(pgx.TxOptions{AccessMode: pgx.ReadOnly})
	n, err := occpgx.RunTxWithRetry(ctx, pool, func(tx pgx.Tx) (int, error) {
		var n int
		err := tx.QueryRow(ctx, "SELECT count(*) FROM shards").Scan(&n)
		return n, err
	}, readOnly, occ.WithOperation("CountShards"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "shards")
}
