// Package sqlplugin declares what a database plugin does; plugins
// register themselves in init, so the store never imports them.
package sqlplugin

import (
	"context"
	"database/sql"
)

// Shards is what a plugin does with the shards table.
type Shards interface {
	WriteLockShards(ctx context.Context, shardID int32) (int64, error)
	UpdateShards(ctx context.Context, shardID int32, rangeID int64, data []byte) (sql.Result, error)
	CASShards(ctx context.Context, shardID int32, prev, next int64) (sql.Result, error)
}

// Queues is what a plugin does with the queues table.
type Queues interface {
	LockQueue(ctx context.Context, name string) (int64, error)
	UpdateQueue(ctx context.Context, name string, ackLevel int64) error
}

// Tx is a plugin's transaction.
type Tx interface {
	Shards
	Queues
	Commit() error
	Rollback() error
}

// DB is a plugin's connection.
type DB interface {
	Shards
	Queues
	BeginTx(ctx context.Context) (Tx, error)
}

var plugins = map[string]func(*sql.DB) DB{}

// Register makes a plugin available by name.
func Register(name string, open func(*sql.DB) DB) { plugins[name] = open }

// Open returns the named plugin's DB.
func Open(name string, handle *sql.DB) DB { return plugins[name](handle) }
