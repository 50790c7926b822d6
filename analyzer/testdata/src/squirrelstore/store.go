// Package squirrelstore builds its SQL with squirrel: the statements are
// rendered from the builder chains and judged like written SQL.
package squirrelstore

import (
	"context"
	"database/sql"
	"errors"

	sq "github.com/Masterminds/squirrel"
	"github.com/dsqllint/dsqllint/runtime/occ"
)

var psql = sq.StatementBuilder.PlaceholderFormat(sq.Dollar)

// Workers move through states; the store looks them up by state.
func Running(db *sql.DB) (*sql.Rows, error) {
	q, args, err := psql.Select("name").From("workers").Where(sq.Eq{"state": "running"}).ToSql()
	if err != nil {
		return nil, err
	}
	return db.Query(q, args...)
}

// A blind state write: whatever the worker was doing, it is now retiring.
func Retire(db *sql.DB, name string) error {
	_, err := psql.Update("workers"). // want `DSQL003 unfenced-write: state is compare-and-set: store.go:36 compare-and-sets state; this UPDATE changes state by the row's key without comparing it`
						SetMap(map[string]interface{}{"state": "retiring"}).
						Where(sq.Eq{"name": name}).
						RunWith(db).Exec()
	return err
}

// Negative twin: the state it leaves is compared.
func Land(db *sql.DB, name string) error {
	res, err := psql.Update("workers").
		Set("state", "landing").
		Where(sq.And{sq.Eq{"name": name}, sq.Or{sq.Eq{"state": "running"}, sq.Eq{"state": "stalled"}}}).
		RunWith(db).Exec()
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return errors.New("worker moved on")
	}
	return nil
}

// A value computed in SQL the analysis cannot read (a CASE over the
// current state, built at run time): no blind write, nothing said.
func Heartbeat(db *sql.DB, name, caseSQL string) error {
	_, err := psql.Update("workers").Set("state", sq.Expr("("+caseSQL+")")).Where(sq.Eq{"name": name}).RunWith(db).Exec()
	return err
}

// A predicate known only at run time: nothing is said rather than guess.
func Stall(db *sql.DB, cond sq.Sqlizer) error {
	_, err := psql.Update("workers").Set("state", "stalled").Where(cond).RunWith(db).Exec()
	return err
}

// A lock through Suffix, on a transaction nothing retries.
func Claim(ctx context.Context, db *sql.DB, id int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := psql.Select("1").From("resources").Where(sq.Eq{"id": id}).Suffix("FOR UPDATE").RunWith(tx).Exec(); err != nil { // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at store.go:64`
		return err
	}
	return tx.Commit()
}

// The same rendered with ToSql and run on the transaction, built over
// several statements.
func ClaimBuilt(ctx context.Context, db *sql.DB, id int, lock bool) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q := psql.Select("1").From("resources")
	q = q.Where(sq.Eq{"id": id})
	if lock {
		q = q.Suffix("FOR UPDATE")
	}
	text, args, err := q.ToSql()
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, text, args...); err != nil { // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at store.go:78`
		return err
	}
	return tx.Commit()
}

// Negative twin: the runtime re-runs the transaction.
func ClaimRetried(ctx context.Context, db *sql.DB, id int) error {
	return occ.RunTxWithRetryVoid(ctx, db, func(tx *sql.Tx) error {
		_, err := psql.Select("1").From("resources").Where(sq.Eq{"id": id}).Suffix("FOR UPDATE").RunWith(tx).Exec()
		return err
	})
}

// A share lock, reported once at the literal, with its fix.
func Peek(tx *sql.Tx, id int) error {
	_, err := psql.Select("1").From("resources").Where(sq.Eq{"id": id}).Suffix("FOR SHARE").RunWith(tx).Exec() // want `DSQL001 share-lock`
	return err
}
