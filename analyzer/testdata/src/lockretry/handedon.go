package lockretry

import (
	"context"
	"database/sql"
	"strings"
)

// inTx hands fn on to runOnce inside its retry loop, as cockroach-go's
// ExecuteTx hands it to ExecuteInTx: the closure runs in the retry.
func inTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	for {
		err := runOnce(ctx, db, fn)
		if err == nil || !strings.Contains(err.Error(), "40001") {
			return err
		}
	}
}

func runOnce(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// Negative: the closure reaches the Begin of runOnce through inTx's retry.
func claimHandedOn(ctx context.Context, db *sql.DB, id int64) error {
	return inTx(ctx, db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id)
		return err
	})
}

// Positive twin: handed straight to runOnce, outside any retry.
func claimOnce(ctx context.Context, db *sql.DB, id int64) error {
	return runOnce(ctx, db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id) // want `DSQL005 lock-without-retry: SELECT \.\.\. FOR UPDATE runs in the transaction begun at handedon.go:21`
		return err
	})
}
