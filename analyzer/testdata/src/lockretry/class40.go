package lockretry

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// sqlState is what drivers' errors answer (pgconn.PgError.SQLState).
type sqlState interface{ SQLState() string }

func stateOf(err error) string {
	var s sqlState
	if errors.As(err, &s) {
		return s.SQLState()
	}
	return ""
}

// A retry helper whose predicate tests the SQLSTATE's class: class 40,
// transaction rollback, holds 40001.
func retryClass40(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		if code := stateOf(err); len(code) == 5 && code[:2] == "40" {
			continue
		}
		return err
	}
}

// Quiet: the class-40 helper re-runs the transaction on 40001.
func lockViaClass40(ctx context.Context, db *sql.DB) error {
	return retryClass40(ctx, func() error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", 3); err != nil {
			return err
		}
		return tx.Commit()
	})
}

// The same class test spelled with strings.HasPrefix.
func retryRollbackClass(ctx context.Context, fn func() error) error {
	for attempt := 0; attempt < 5; attempt++ {
		err := fn()
		if err == nil || !strings.HasPrefix(stateOf(err), "40") {
			return err
		}
	}
	return errors.New("gave up")
}

// Quiet: retried by the HasPrefix helper.
func lockViaPrefix(ctx context.Context, db *sql.DB) error {
	return retryRollbackClass(ctx, func() error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", 4); err != nil {
			return err
		}
		return tx.Commit()
	})
}

// The negative twin: class 08, a broken connection, is no serialization
// failure.
func retryClass08(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		if code := stateOf(err); len(code) == 5 && code[:2] == "08" {
			continue
		}
		return err
	}
}

func lockViaClass08(ctx context.Context, db *sql.DB) error {
	return retryClass08(ctx, func() error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", 5); err != nil { // want `DSQL005 lock-without-retry`
			return err
		}
		return tx.Commit()
	})
}
