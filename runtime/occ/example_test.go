package occ_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/dsqllint/dsqllint/runtime/occ"
)

// The examples open the database with a database/sql driver for PostgreSQL
// registered as "pgx" (import _ "github.com/jackc/pgx/v5/stdlib"); occ works
// with any.

// Take over a shard by advancing its fencing token. Instead of SELECT ... FOR
// SHARE (rejected by Aurora DSQL), read the token and write it back
// conditionally: a conflict is retried, a lost race is reported.
func ExampleRunTxWithRetry() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	const shardID = 7

	rangeID, err := occ.RunTxWithRetry(ctx, db, func(tx *sql.Tx) (int64, error) {
		// Only database work in here: this function may run several times.
		var rangeID int64
		if err := tx.QueryRowContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1", shardID).Scan(&rangeID); err != nil {
			return 0, err
		}
		err := occ.ExecCAS(ctx, tx,
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
		fmt.Println("own shard with range_id", rangeID) // side effects go after the call
	}
}

func ExampleRunTxWithRetryVoid() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()

	err = occ.RunTxWithRetryVoid(ctx, db, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "UPDATE accounts SET balance = balance - 10 WHERE id = 1"); err != nil {
			return fmt.Errorf("debit: %w", err) // %w keeps a 40001 visible to the retry loop
		}
		_, err := tx.ExecContext(ctx, "UPDATE accounts SET balance = balance + 10 WHERE id = 2")
		return err
	},
		occ.WithOperation("Transfer"),
		occ.WithConfig(occ.RetryConfig{MaxRetries: 8, BaseDelay: 20 * time.Millisecond, MaxDelay: 2 * time.Second, JitterFactor: 1}),
	)
	var exhausted *occ.RetriesExhaustedError
	if errors.As(err, &exhausted) {
		log.Printf("gave up after %d conflicting attempts; the row is too hot", exhausted.Attempts)
	}
}

// A single statement outside a transaction is a transaction of its own, and
// on Aurora DSQL it loses a conflict with SQLSTATE 40001 like any other: FOR
// UPDATE does not make it wait its turn. ExecWithRetry runs it again.
func ExampleExecWithRetry() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	// The new value is computed in SQL from the row the statement reads, so
	// a retry, on a fresh snapshot, adds one to the latest value.
	res, err := occ.ExecWithRetry(context.Background(), db,
		"UPDATE counters SET n = n + 1 WHERE id = $1", 1)
	if err != nil {
		log.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		fmt.Println("no counter 1")
	}
}

// Options go in a slice before the query, since the statement's arguments
// are variadic.
func ExampleExecWithRetryOpts() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	opts := []occ.Option{ // build once, reuse for every call
		occ.WithOperation("ClaimTask"),
		occ.WithConfig(occ.RetryConfig{MaxRetries: 8, BaseDelay: 20 * time.Millisecond, MaxDelay: time.Second, JitterFactor: 1}),
	}

	res, err := occ.ExecWithRetryOpts(context.Background(), db, opts,
		`WITH t AS (SELECT task_id FROM tasks WHERE queue = $1 AND owner IS NULL ORDER BY task_id LIMIT 1 FOR UPDATE)
		 UPDATE tasks SET owner = $2 FROM t WHERE tasks.task_id = t.task_id`,
		"default", "worker-7")
	var exhausted *occ.RetriesExhaustedError
	switch {
	case errors.As(err, &exhausted):
		log.Printf("gave up after %d conflicting attempts", exhausted.Attempts)
	case err != nil:
		log.Fatal(err)
	default:
		if n, _ := res.RowsAffected(); n == 1 {
			fmt.Println("claimed a task") // side effects go after the call
		}
	}
}

// Hooks receive every step; count or log them without a metrics dependency
// (package occprom turns them into Prometheus metrics).
func ExampleWithHooks() {
	logRetries := occ.WithHooks(occ.Hooks{
		OnRetry: func(e occ.Event) {
			log.Printf("%s: attempt %d conflicted (%s %s), retrying in %v", e.Operation, e.Attempt, e.SQLState, e.OCCCode, e.Delay)
		},
		OnDone: func(e occ.Event) {
			if e.Err != nil {
				log.Printf("%s failed after %d attempts (%v): %v", e.Operation, e.Attempt, e.ErrorType, e.Err)
			}
		},
	})
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	_ = occ.RunTxWithRetryVoid(context.Background(), db, func(tx *sql.Tx) error {
		_, err := tx.Exec("UPDATE counters SET n = n + 1 WHERE id = 1")
		return err
	}, occ.WithOperation("BumpCounter"), logRetries)
}

func ExampleClassifyError() {
	lost := fmt.Errorf("update shard 7: %w", &occ.ConditionFailedError{Msg: "range_id changed"})
	fmt.Println(occ.ClassifyError(lost))
	fmt.Println(occ.ClassifyError(errors.New("connection refused")))
	// Output:
	// condition_failed
	// permanent
}

func ExampleDefaultRetryConfig() {
	cfg := occ.DefaultRetryConfig()
	fmt.Printf("up to %d attempts, waits from %v to %v, jitter %v\n", cfg.MaxRetries+1, cfg.BaseDelay, cfg.MaxDelay, cfg.JitterFactor)
	// Output: up to 6 attempts, waits from 100ms to 5s, jitter 0.25
}
