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
