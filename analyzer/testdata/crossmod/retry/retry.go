// Package retry re-runs a function on a serialization failure: a retry
// helper recognised by its body, in a package of its own.
package retry

import (
	"context"
	"database/sql"
	"errors"
)

type sqlState interface{ SQLState() string }

// Do runs fn again while it fails with SQLSTATE 40001.
func Do(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		var s sqlState
		if errors.As(err, &s) && s.SQLState() == "40001" {
			continue
		}
		return err
	}
}

// InTx runs fn in a transaction of its own, again on 40001: it hands fn
// on to once inside its loop, as cockroach-go's ExecuteTx does.
func InTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	for {
		err := Once(ctx, db, fn)
		var s sqlState
		if errors.As(err, &s) && s.SQLState() == "40001" {
			continue
		}
		return err
	}
}

// Once runs fn in a transaction, once.
func Once(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
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
