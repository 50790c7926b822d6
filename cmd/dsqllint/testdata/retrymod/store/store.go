// Package store reserves seats, each in a transaction that locks the
// show's row, at an isolation level Aurora DSQL refuses.
package store

import (
	"context"
	"database/sql"
	"fmt"
)

type Store struct{ db *sql.DB }

func (s *Store) Reserve(ctx context.Context, show int64) (int64, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{
		Isolation: sql.LevelReadCommitted,
	})
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()

	// Lock the show, then take a seat.
	var seats int64
	if err := tx.QueryRowContext(ctx, "SELECT seats FROM shows WHERE id = $1 FOR UPDATE", show).Scan(&seats); err != nil {
		return 0, fmt.Errorf("read show %d: %w", show, err)
	}
	if seats == 0 {
		return 0, fmt.Errorf("show %d is sold out", show)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE shows SET seats = $1 WHERE id = $2", seats-1, show); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return seats - 1, nil
}
