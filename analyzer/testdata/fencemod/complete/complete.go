// Package complete finishes the tasks package claim hands out. Its writes
// compare the owner column another package assigns: that tasks are
// claimed, and by what, is learned from the module, not from this package
// alone.
package complete

import (
	"context"
	"database/sql"
)

// Pending lists the tasks no one finished: the state is looked up, not
// payload.
func Pending(ctx context.Context, db *sql.DB) (*sql.Rows, error) {
	return db.QueryContext(ctx, "SELECT id FROM tasks WHERE state = 'new'")
}

// Complete finishes a task the worker still holds: fenced by the owner,
// though the column is called worker and is part of a unique index.
func Complete(ctx context.Context, db *sql.DB, id int64, worker string) error {
	res, err := db.ExecContext(ctx, "UPDATE tasks SET locked_until = NULL, state = 'done' WHERE id = $1 AND worker = $2", id, worker)
	if err != nil {
		return err
	}
	_, err = res.RowsAffected()
	return err
}

// Extend moves a lease the worker holds: fenced the same way.
func Extend(ctx context.Context, db *sql.DB, id int64, worker string) error {
	res, err := db.ExecContext(ctx, "UPDATE tasks SET locked_until = now() + interval '1 minute' WHERE id = $1 AND worker = $2", id, worker)
	if err != nil {
		return err
	}
	_, err = res.RowsAffected()
	return err
}

// Finish sets the state by the task's key alone, whoever holds it.
func Finish(ctx context.Context, db *sql.DB, id int64) error {
	_, err := db.ExecContext(ctx, "UPDATE tasks SET state = 'done' WHERE id = $1", id) // want `DSQL003 unfenced-write: tasks's rows are claimed: claim/claim.go:13 claims the row \(sets worker\); this UPDATE changes state without checking the claim.* add .AND worker = \$2.`
	return err
}
