// Package pg implements the stores; each call begins its own transaction.
package pg

import (
	"context"
	"database/sql"
)

type Store struct{ DB *sql.DB }

func (s *Store) Acquire(ctx context.Context, id int) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", id); err != nil {
		return err
	}
	return tx.Commit()
}

func (s *Store) Claim(ctx context.Context, name string) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT ack FROM queues WHERE name = $1 FOR UPDATE", name); err != nil { // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at pg.go:24, which nothing retries`
		return err
	}
	return tx.Commit()
}

func (s *Store) ClaimOnce(ctx context.Context, name string) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT ack FROM queues WHERE name = $1 AND ack >= 0 FOR UPDATE", name); err != nil {
		return err
	}
	return tx.Commit()
}
