// Package indirectdb reaches database/sql only through dbwrap's API: the
// Go-flow rules follow it all the same.
package indirectdb

import (
	"context"

	"indirectdb/dbwrap"
)

const casShard = "UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3"

func bump(ctx context.Context) error {
	tx, err := dbwrap.Begin(ctx)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, casShard, 2, 1, 1) // want `DSQL004 unchecked-cas: the result of this compare-and-swap write is discarded`
	return err
}
