// Package pgdriver is driver's PostgreSQL implementation.
package pgdriver

import (
	"context"
	"database/sql"
	"errors"
)

// DB implements driver.Driver.
type DB struct{ db *sql.DB }

type sqlState interface{ SQLState() string }

func (*DB) IsRetryableApplyError(err error) bool {
	var e sqlState
	return errors.As(err, &e) && e.SQLState() == "40001"
}

func (*DB) IsTransientPruneError(err error) bool { return errors.Is(err, context.DeadlineExceeded) }

func (d *DB) Apply(ctx context.Context) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var v string
	if err := tx.QueryRowContext(ctx, "SELECT value FROM setting WHERE name = $1 FOR UPDATE", "a").Scan(&v); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE setting SET value = $1 WHERE name = $2", v+"!", "a"); err != nil {
		return err
	}
	return tx.Commit()
}

func (d *DB) Prune(ctx context.Context) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count FROM quota WHERE name = $1 FOR UPDATE", "b").Scan(&n); err != nil { // want `DSQL005 lock-without-retry`
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE quota SET count = $1 WHERE name = $2", n-1, "b"); err != nil {
		return err
	}
	return tx.Commit()
}
