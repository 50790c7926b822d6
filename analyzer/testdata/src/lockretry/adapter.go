package lockretry

import (
	"context"
	"database/sql"
	"strings"
)

// A project's own transaction type behind an adapter: Begin returns a
// value with Commit and Rollback, as the drivers' Begin does.
type Tx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	Commit() error
	Rollback() error
}

type Beginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (Tx, error)
}

func lockJob(ctx context.Context, db Beginner, id int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id); err != nil { // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at adapter.go:22`
		return err
	}
	return tx.Commit()
}

// Negative twin: the caller re-runs it on a serialization failure.
func lockJobRetried(ctx context.Context, db Beginner, id int64) error {
	for {
		err := lockJobOnce(ctx, db, id)
		if err == nil || !strings.Contains(err.Error(), "40001") {
			return err
		}
	}
}

func lockJobOnce(ctx context.Context, db Beginner, id int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id); err != nil {
		return err
	}
	return tx.Commit()
}
