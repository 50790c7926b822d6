// Package txkit runs a function in a transaction of its own, again when
// the error it fails with is one sqlerr makes of a serialization failure:
// a retry helper that never spells 40001.
package txkit

import (
	"context"
	"database/sql"
	"errors"

	"sentinelmod/sqlerr"
)

func once(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Transaction re-runs fn while it fails with sqlerr.ErrConflict().
func Transaction(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	var err error
	for range 10 {
		err = once(ctx, db, fn)
		if err == nil || !errors.Is(sqlerr.Translate(err), sqlerr.ErrConflict()) {
			return err
		}
	}
	return err
}

// Aborting re-runs fn while it fails with sqlerr.ErrAborted.
func Aborting(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	for {
		err := once(ctx, db, fn)
		if sqlerr.Classify(err) != sqlerr.ErrAborted {
			return err
		}
	}
}

// UnlessMissing re-runs fn while it fails with sqlerr.ErrNotFound(): no
// serialization failure becomes that.
func UnlessMissing(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	for {
		err := once(ctx, db, fn)
		if !errors.Is(sqlerr.Translate(err), sqlerr.ErrNotFound()) {
			return err
		}
	}
}

// Deduplicating re-runs fn while it fails with sqlerr.ErrDuplicate.
func Deduplicating(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	for {
		err := once(ctx, db, fn)
		if sqlerr.Translate(err) != sqlerr.ErrDuplicate {
			return err
		}
	}
}

// Scoped re-runs fn, in a transaction a function literal called where it
// stands begins, while it fails with sqlerr.ErrConflict(): the literal
// runs inside the loop.
func Scoped(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	var err error
	for range 10 {
		err = func() error {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			if err := fn(tx); err != nil {
				tx.Rollback()
				return err
			}
			return tx.Commit()
		}()
		if !errors.Is(sqlerr.Translate(err), sqlerr.ErrConflict()) {
			return err
		}
	}
	return err
}
