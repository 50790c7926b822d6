// Package service begins the transactions and hands them to store.
package service

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"example.com/txmod/retry"
	"example.com/txmod/store"
	"example.com/txmod/txutil"
)

// Handle begins a transaction nothing retries and locks in another
// package.
func Handle(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := store.LockShard(ctx, tx, 1); err != nil {
		return err
	}
	if err := store.ReadShard(ctx, tx, 1); err != nil {
		return err
	}
	return tx.Commit()
}

// Release reaches the lock two calls down.
func Release(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := store.LockVia(ctx, tx, 2); err != nil {
		return err
	}
	if err := store.LockIgnored(ctx, tx, 2); err != nil {
		return err
	}
	return tx.Commit()
}

// Negative twin: the same shape, re-run by its caller on a serialization
// failure.
func handleOnce(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := store.LockRetried(ctx, tx, 3); err != nil {
		return err
	}
	return tx.Commit()
}

// HandleWithRetry re-runs handleOnce on SQLSTATE 40001.
func HandleWithRetry(ctx context.Context, db *sql.DB) error {
	for {
		err := handleOnce(ctx, db)
		if err != nil && isSerializationFailure(err) {
			continue
		}
		return err
	}
}

func isSerializationFailure(err error) bool {
	var s interface{ SQLState() string }
	return errors.As(err, &s) && strings.Contains(s.SQLState(), "40001")
}

// Renew gets its transaction from a helper that begins it, and nothing
// retries it.
func Renew(ctx context.Context, db *sql.DB, id string) error {
	tx, commit, err := txutil.Begin(ctx, db)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := store.LockLease(ctx, tx, id); err != nil {
		return err
	}
	return commit()
}

// The transaction comes from the context: nothing shows that whoever began
// it retries it, so the lock is reported.
func Own(ctx context.Context, id string) error {
	tx := txutil.Current(ctx)
	return store.LockOwned(ctx, tx, id)
}

// Bump drops the count BumpRange hands back.
func Bump(ctx context.Context, tx *sql.Tx) error {
	_, err := store.BumpRange(ctx, tx, 1, 5) // want `DSQL004 unchecked-cas: the result store.BumpRange returns from a compare-and-swap write is discarded`
	return err
}

// Negative twin: the count is read.
func BumpChecked(ctx context.Context, tx *sql.Tx) error {
	res, err := store.BumpRange(ctx, tx, 1, 5)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return errors.New("shard ownership lost")
	}
	return nil
}

// Quiet: begun in a closure that another package's retry helper re-runs.
func HandleDecorated(ctx context.Context, db *sql.DB) error {
	return retry.Do(ctx, func() error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, "SELECT 1 FROM shards WHERE shard_id = $1 FOR UPDATE", 5); err != nil {
			return err
		}
		return tx.Commit()
	})
}

// The trap across packages: a wrapper that never re-runs a conflict.
func HandleTransient(ctx context.Context, db *sql.DB) error {
	return retry.Transient(ctx, func() error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, "SELECT 1 FROM shards WHERE shard_id = $1 FOR UPDATE", 6); err != nil { // want `DSQL005 lock-without-retry`
			return err
		}
		return tx.Commit()
	})
}

// Quiet: the function that begins runs in a closure Do re-runs.
func HandleDecoratedCall(ctx context.Context, db *sql.DB) error {
	return retry.Do(ctx, func() error { return decoratedOnce(ctx, db) })
}

func decoratedOnce(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := store.LockDecorated(ctx, tx, "d"); err != nil {
		return err
	}
	return tx.Commit()
}

// Claim locks through a dialect method and an optional clause, and nothing
// retries it.
func Claim(ctx context.Context, db *sql.DB, id int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := store.LockJob(ctx, tx, store.Postgres{}, id); err != nil {
		return err
	}
	if err := store.LockTask(ctx, tx, id, true); err != nil {
		return err
	}
	if err := store.ReadTask(ctx, tx, id, true); err != nil {
		return err
	}
	return tx.Commit()
}

// Order gets its transaction inside a Repo a helper begins, and nothing
// retries it.
func Order(ctx context.Context, db *sql.DB, id int) error {
	r, err := txutil.BeginRepo(ctx, db)
	if err != nil {
		return err
	}
	if err := r.LockOrder(ctx, id); err != nil {
		return err
	}
	return r.Commit()
}

// A single locking statement: one caller runs it bare, the other's in a
// closure that another package's helper re-runs on 40001.
func Fetch(ctx context.Context, db *sql.DB) error { return store.FetchJob(ctx, db) }

func FetchRetried(ctx context.Context, db *sql.DB) error {
	return retry.Do(ctx, func() error { return store.FetchJobRetried(ctx, db) })
}
