// Package store runs every operation in a transaction of the plugin it is
// given; it never imports the plugin.
package store

import (
	"context"
	"errors"
	"strings"

	"example.com/pluginmod/sqlplugin"
)

// ErrOwnershipLost is returned when the shard's range_id moved on.
var ErrOwnershipLost = errors.New("shard ownership lost")

// Store is the persistence layer over a plugin.
type Store struct {
	DB sqlplugin.DB
}

func (m *Store) txExecute(ctx context.Context, f func(tx sqlplugin.Tx) error) error {
	tx, err := m.DB.BeginTx(ctx)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// UpdateShard locks the shard row, compares its range_id, and writes it
// by key: fenced, but nothing re-runs the transaction on 40001.
func (m *Store) UpdateShard(ctx context.Context, shardID int32, prev, next int64, data []byte) error {
	return m.txExecute(ctx, func(tx sqlplugin.Tx) error {
		if err := lockShard(ctx, tx, shardID, prev); err != nil {
			return err
		}
		_, err := tx.UpdateShards(ctx, shardID, next, data)
		return err
	})
}

func lockShard(ctx context.Context, tx sqlplugin.Tx, shardID int32, prev int64) error {
	rangeID, err := tx.WriteLockShards(ctx, shardID)
	if err != nil {
		return err
	}
	current := rangeID // what flows into the comparison counts
	if current != prev {
		return ErrOwnershipLost
	}
	return nil
}

// AckQueue locks the queue row and writes it, comparing nothing; it is
// re-run on 40001, so only the unfenced write remains.
func (m *Store) AckQueue(ctx context.Context, name string, level int64) error {
	return withConflictRetry(ctx, func() error {
		return m.txExecute(ctx, func(tx sqlplugin.Tx) error {
			if _, err := tx.LockQueue(ctx, name); err != nil {
				return err
			}
			return tx.UpdateQueue(ctx, name, level)
		})
	})
}

// BumpShard drops the row count of a compare-and-swap write the plugin
// hands back through the interface.
func (m *Store) BumpShard(ctx context.Context, shardID int32, prev int64) error {
	_, err := m.DB.CASShards(ctx, shardID, prev, prev+1) // want `DSQL004 unchecked-cas: the result \(sqlplugin.Shards\).CASShards returns from a compare-and-swap write is discarded`
	return err
}

// Negative twin: the count is checked.
func (m *Store) BumpShardChecked(ctx context.Context, shardID int32, prev int64) error {
	res, err := m.DB.CASShards(ctx, shardID, prev, prev+1)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return ErrOwnershipLost
	}
	return nil
}

// withConflictRetry re-runs fn while it fails with a serialization failure.
func withConflictRetry(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		if err != nil && strings.Contains(err.Error(), "40001") {
			continue
		}
		return err
	}
}
