// Package store runs the generated queries; it has no SQL of its own.
package store

import (
	"context"

	"example.com/sqlcmod/db/sqlc"
)

func Bump(ctx context.Context, q *sqlc.Queries, shard int32, cur int64) error {
	return q.UpdateShard(ctx, sqlc.UpdateShardParams{NextRangeID: cur + 1, ShardID: shard, RangeID: cur})
}
