package uncheckedcas

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/dsqllint/dsqllint/runtime/occ"
	"github.com/jackc/pgx/v5"
	"github.com/jmoiron/sqlx"
)

const casShard = "UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3"

const casLease = "UPDATE leases SET heartbeat_at = ?, expires_at = ? WHERE resource_id = ? AND worker_id = ?"

func discarded(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, casShard, 2, 1, 1) // want `DSQL004 unchecked-cas: the result of this compare-and-swap write is discarded`
	return err
}

func statement(ctx context.Context, db *sql.DB) {
	db.ExecContext(ctx, casShard, 2, 1, 1) // want `DSQL004 unchecked-cas: the result of this compare-and-swap write is discarded`
}

func neverRead(ctx context.Context, tx *sql.Tx) error {
	res, err := tx.ExecContext(ctx, casShard, 2, 1, 1) // want `DSQL004 unchecked-cas: the result of this compare-and-swap write is never read`
	_ = res
	return err
}

func wrongRead(ctx context.Context, tx *sql.Tx) (int64, error) {
	res, err := tx.ExecContext(ctx, casShard, 2, 1, 1) // want `is read without RowsAffected\(\)`
	if err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("id %v", res.LastInsertId)
}

func pgxDiscarded(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, casShard, 2, 1, 1) // want `DSQL004 unchecked-cas: .* use occpgx.ExecCAS`
	return err
}

func sqlxNamed(db *sqlx.DB) {
	db.NamedExec("UPDATE shards SET range_id = :new WHERE shard_id = :id AND range_id = :old", nil) // want `DSQL004`
}

func localVariable(ctx context.Context, tx *sql.Tx) error {
	q := "UPDATE namespace_metadata SET notification_version = $1 WHERE partition_id = $2 AND notification_version = $3"
	_, err := tx.ExecContext(ctx, q, 2, 1, 1) // want `DSQL004`
	return err
}

func sprintfQuery(ctx context.Context, tx *sql.Tx, table string) error {
	_, err := tx.ExecContext(ctx, fmt.Sprintf("UPDATE %s SET range_id = $1 WHERE task_queue_id = $2 AND range_id = $3", table), 2, 1, 1) // want `DSQL004`
	return err
}

// Negatives.

func checked(ctx context.Context, tx *sql.Tx) error {
	res, err := tx.ExecContext(ctx, casShard, 2, 1, 1)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("shard ownership lost")
	}
	return nil
}

func checkedByHelper(ctx context.Context, tx *sql.Tx) error {
	res, err := tx.ExecContext(ctx, casShard, 2, 1, 1)
	if err != nil {
		return err
	}
	return expectOne(res)
}

func expectOne(res sql.Result) error {
	n, err := res.RowsAffected()
	if err == nil && n != 1 {
		err = fmt.Errorf("condition failed")
	}
	return err
}

func returned(ctx context.Context, tx *sql.Tx) (sql.Result, error) {
	return tx.ExecContext(ctx, casShard, 2, 1, 1)
}

func viaExecCAS(ctx context.Context, tx *sql.Tx) error {
	return occ.ExecCAS(ctx, tx, casShard, 2, 1, 1)
}

func pgxChecked(ctx context.Context, tx pgx.Tx) error {
	tag, err := tx.Exec(ctx, casLease, 1, 2, 3, 4)
	if err == nil && tag.RowsAffected() != 1 {
		return fmt.Errorf("lease lost")
	}
	return err
}

// Not CAS writes: key-only, bulk, and inserts.
func notCAS(ctx context.Context, tx *sql.Tx) {
	tx.ExecContext(ctx, "UPDATE workflow_steps SET output_data = $1 WHERE id = $2", 1, 2)
	tx.ExecContext(ctx, "DELETE FROM leases WHERE namespace = $1 AND expires_at < $2", 1, 2)
	tx.ExecContext(ctx, "INSERT INTO shards (shard_id, range_id) VALUES ($1, $2)", 1, 2)
	tx.ExecContext(ctx, "UPDATE shards SET range_id = $1 WHERE range_id = $2", 1, 2) // fence only: no key pins the row
}
