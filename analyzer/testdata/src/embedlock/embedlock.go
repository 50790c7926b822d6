// Package embedlock runs locks kept in embedded .sql files: each runs in
// the transaction of the query call that runs its variable, as a
// constant's would.
package embedlock

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
)

//go:embed lock.sql
var lockSQL string

//go:embed retried.sql
var retriedSQL string

// Reported: the transaction is begun once, outside any retry.
func once(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, lockSQL, 1).Scan(&v); err != nil {
		return err
	}
	return tx.Commit()
}

type sqlState interface{ SQLState() string }

// Quiet: the transaction is begun again on 40001.
func retried(ctx context.Context, db *sql.DB) error {
	for {
		err := func() error {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			var v int
			if err := tx.QueryRowContext(ctx, string(retriedSQL), 1).Scan(&v); err != nil {
				return err
			}
			return tx.Commit()
		}()
		var s sqlState
		if errors.As(err, &s) && s.SQLState() == "40001" {
			continue
		}
		return err
	}
}
