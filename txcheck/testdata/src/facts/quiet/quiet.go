// Package quiet runs SQL that crosses no package: a read and a write on
// the pool, nothing locked, begun or retried. It exports no fact (the
// negative twin of lock).
package quiet

import (
	"context"
	"database/sql"
)

// Name reads a shard's name.
func Name(ctx context.Context, db *sql.DB, shard int) (string, error) {
	var name string
	err := db.QueryRowContext(ctx, "SELECT name FROM shards WHERE shard_id = $1", shard).Scan(&name)
	return name, err
}
