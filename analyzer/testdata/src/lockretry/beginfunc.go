package lockretry

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgx begins the transaction, runs the closure on it and commits: nothing
// re-runs it when the commit loses.
func moveShard(ctx context.Context, pool *pgxpool.Pool, id int) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var rangeID int64
		if err := tx.QueryRow(ctx, lockShard, id).Scan(&rangeID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3", rangeID+1, id, rangeID) // want `DSQL004 unchecked-cas`
		return err
	})
}

var errRetryable = errors.New("serialization failure")

func errorRetryable(err error) bool { return errors.Is(err, errRetryable) }

// Negative twin: a loop re-runs the whole BeginTxFunc when it loses.
func moveShardRetried(ctx context.Context, pool *pgxpool.Pool, id int) error {
	for {
		err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
			var rangeID int64
			if err := tx.QueryRow(ctx, lockShardRetried, id).Scan(&rangeID); err != nil {
				return err
			}
			res, err := tx.Exec(ctx, "UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3", rangeID+1, id, rangeID)
			if err == nil && res.RowsAffected() != 1 {
				return errors.New("moved")
			}
			return err
		})
		if errorRetryable(err) {
			continue
		}
		return err
	}
}
