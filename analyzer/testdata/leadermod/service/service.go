// Package service begins the transactions the plugin's methods run in.
package service

import (
	"context"
	"database/sql"
	"strings"

	"example.com/leadermod/plugin"
)

func retry(fn func() error) error {
	for {
		err := fn()
		if err != nil && strings.Contains(err.Error(), "40001") {
			continue
		}
		return err
	}
}

// Append checks the shard's range_id under FOR SHARE, then writes the
// execution.
func Append(ctx context.Context, db *sql.DB, shard int, run string, next int64) error {
	return retry(func() error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := plugin.ReadLockShard(ctx, tx, shard); err != nil {
			return err
		}
		if err := plugin.UpdateExecution(ctx, tx, shard, run, next); err != nil {
			return err
		}
		return tx.Commit()
	})
}

// Move locks the shard FOR UPDATE, then writes.
func Move(ctx context.Context, db *sql.DB, shard int, workflow, run string) error {
	return retry(func() error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := plugin.WriteLockShard(ctx, tx, shard); err != nil {
			return err
		}
		if err := plugin.UpdateCurrent(ctx, tx, shard, workflow, run); err != nil {
			return err
		}
		return tx.Commit()
	})
}

// Store calls through a field set to a method value, as code that swaps
// its functions in tests does.
type Store struct {
	db       *sql.DB
	lockedFn func(ctx context.Context, shard int, fn func(tx *sql.Tx) error) error
}

func NewStore(db *sql.DB) *Store {
	s := &Store{db: db}
	s.lockedFn = s.shardLocked
	return s
}

func (s *Store) shardLocked(ctx context.Context, shard int, fn func(tx *sql.Tx) error) error {
	return retry(func() error {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := plugin.ReadLockShard(ctx, tx, shard); err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			return err
		}
		return tx.Commit()
	})
}

// Complete runs its write through the field.
func (s *Store) Complete(ctx context.Context, shard int, run string) error {
	return s.lockedFn(ctx, shard, func(tx *sql.Tx) error { return plugin.CompleteExecution(ctx, tx, shard, run) })
}
