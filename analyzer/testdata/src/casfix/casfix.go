package casfix

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
)

const casShard = "UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3"

func define(ctx context.Context, tx *sql.Tx, args []any) error {
	_, err := tx.ExecContext(ctx, casShard, args...) // want `DSQL004`
	return err
}

func assign(ctx context.Context, tx *sql.Tx) (err error) {
	_, err = tx.ExecContext(ctx, casShard, 2, 1, 1) // want `DSQL004`
	return err
}

func inIf(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, casShard, 2, 1, 1); err != nil { // want `DSQL004`
		return err
	}
	return nil
}

func pgxExec(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, casShard, 2, 1, 1) // want `DSQL004`
	return err
}

// No fix: *sql.DB is not a transaction, and Exec has no context.
func noFix(ctx context.Context, db *sql.DB, tx *sql.Tx) {
	_, _ = db.ExecContext(ctx, casShard, 2, 1, 1) // want `DSQL004`
	_, _ = tx.Exec(casShard, 2, 1, 1)             // want `DSQL004`
}
