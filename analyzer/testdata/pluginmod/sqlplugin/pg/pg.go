// Package pg is the PostgreSQL plugin: the SQL and the methods that run
// it on a pool or on a transaction.
package pg

import (
	"context"
	"database/sql"

	"example.com/pluginmod/sqlplugin"
)

func init() {
	sqlplugin.Register("postgres", func(h *sql.DB) sqlplugin.DB { return newDB(h, nil) })
}

const (
	lockShardQry = `SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE` // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at store.go:22`
	// Fenced by the lock above, whose range_id the store compares first.
	updateShardQry = `UPDATE shards SET range_id = $1, data = $2 WHERE shard_id = $3`
	casShardQry    = `UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3`
	lockQueueQry   = `SELECT range_id FROM queues WHERE queue_name = $1 FOR UPDATE`
	// Locked first, though nothing compares what the lock read: holding
	// the row's lock fences it, a racing writer fails at COMMIT.
	updateQueueQry = `UPDATE queues SET range_id = $1 WHERE queue_name = $2`
)

type conn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

type db struct {
	handle *sql.DB
	tx     *sql.Tx
}

func newDB(h *sql.DB, tx *sql.Tx) *db { return &db{handle: h, tx: tx} }

func (pdb *db) conn() conn {
	if pdb.tx != nil {
		return pdb.tx
	}
	return pdb.handle
}

// BeginTx hands back a plugin value bound to a new transaction.
func (pdb *db) BeginTx(ctx context.Context) (sqlplugin.Tx, error) {
	tx, err := pdb.handle.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return newDB(pdb.handle, tx), nil
}

func (pdb *db) Commit() error   { return pdb.tx.Commit() }
func (pdb *db) Rollback() error { return pdb.tx.Rollback() }

// GetContext and ExecContext have sqlx's shape: their query runs on
// whatever the value is bound to.
func (pdb *db) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	return pdb.conn().QueryRowContext(ctx, query, args...).Scan(dest)
}

func (pdb *db) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return pdb.conn().ExecContext(ctx, query, args...)
}

func (pdb *db) WriteLockShards(ctx context.Context, shardID int32) (int64, error) {
	var rangeID int64
	err := pdb.GetContext(ctx, &rangeID, lockShardQry, shardID)
	return rangeID, err
}

func (pdb *db) UpdateShards(ctx context.Context, shardID int32, rangeID int64, data []byte) (sql.Result, error) {
	return pdb.ExecContext(ctx, updateShardQry, rangeID, data, shardID)
}

func (pdb *db) CASShards(ctx context.Context, shardID int32, prev, next int64) (sql.Result, error) {
	return pdb.ExecContext(ctx, casShardQry, next, shardID, prev)
}

func (pdb *db) LockQueue(ctx context.Context, name string) (int64, error) {
	var ack int64
	err := pdb.GetContext(ctx, &ack, lockQueueQry, name)
	return ack, err
}

func (pdb *db) UpdateQueue(ctx context.Context, name string, ackLevel int64) error {
	_, err := pdb.ExecContext(ctx, updateQueueQry, ackLevel, name)
	return err
}
