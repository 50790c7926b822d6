package lockretry

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/dsqllint/dsqllint/runtime/occ"
)

// Text assembled at run time: the lock is seen through each piece.

// A MySQL-dialect text whose placeholder list Sprintf completes.
func lockMany(ctx context.Context, db *sql.DB, ids []any) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q := fmt.Sprintf("SELECT `id` FROM `jobs` WHERE `id` IN (?%s) FOR UPDATE", strings.Repeat(",?", len(ids)-1)) // want `DSQL008 lock-scope: FOR UPDATE whose WHERE pins no row by key equality \(only IN\)` `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at assembled.go:16`
	if _, err := tx.QueryContext(ctx, q, ids...); err != nil {
		return err
	}
	return tx.Commit()
}

// A dialect's lock clause held in a variable and appended if there is one.
type dialect interface{ LockClause() string }

type postgres struct{}

func (postgres) LockClause() string { return "FOR UPDATE" }

type sqlite struct{}

func (sqlite) LockClause() string { return "" }

func lockQueue(ctx context.Context, db *sql.DB, d dialect, name string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q := "SELECT name FROM queues WHERE name = $1"
	if lock := d.LockClause(); lock != "" {
		q += " " + lock
	}
	if _, err := tx.QueryContext(ctx, q, name); err != nil { // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at assembled.go:40`
		return err
	}
	return tx.Commit()
}

// A strings.Builder with a schema prefix known only at run time.
func lockWorkflow(ctx context.Context, db *sql.DB, schema, id string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var b strings.Builder
	b.WriteString("SELECT status FROM ")
	b.WriteString(schema)
	b.WriteString(".workflow_status WHERE workflow_uuid = $1 FOR UPDATE")
	if _, err := tx.QueryContext(ctx, b.String(), id); err != nil { // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at assembled.go:57`
		return err
	}
	return tx.Commit()
}

// Negative twins: the same texts in transactions the runtime re-runs, and
// a builder that writes no lock.
func lockManyRetried(ctx context.Context, db *sql.DB, ids []any) error {
	return occ.RunTxWithRetryVoid(ctx, db, func(tx *sql.Tx) error {
		q := fmt.Sprintf("SELECT `id` FROM `jobs` WHERE `id` IN (?%s) FOR UPDATE", strings.Repeat(",?", len(ids)-1)) // want `DSQL008`
		_, err := tx.QueryContext(ctx, q, ids...)
		return err
	})
}

func lockQueueRetried(ctx context.Context, db *sql.DB, d dialect, name string) error {
	return occ.RunTxWithRetryVoid(ctx, db, func(tx *sql.Tx) error {
		q := "SELECT name FROM queues WHERE name = $1"
		if lock := d.LockClause(); lock != "" {
			q += " " + lock
		}
		_, err := tx.QueryContext(ctx, q, name)
		return err
	})
}

func readWorkflow(ctx context.Context, db *sql.DB, schema, id string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var b strings.Builder
	b.WriteString("SELECT status FROM ")
	b.WriteString(schema)
	b.WriteString(".workflow_status WHERE workflow_uuid = $1")
	if _, err := tx.QueryContext(ctx, b.String(), id); err != nil {
		return err
	}
	return tx.Commit()
}
