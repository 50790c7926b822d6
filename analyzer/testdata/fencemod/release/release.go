// Package release gives tasks back. It imports package claim, so a driver
// that runs one package at a time sees the claim's fence too (it travels
// with claim's summary): the release that checks no claim is reported by
// go vet as by the dsqllint command.
package release

import (
	"context"
	"database/sql"
	"time"

	"example.com/fencemod/claim"
)

// Stale lists the tasks still new: the state is looked up, not payload.
func Stale(ctx context.Context, db *sql.DB) (*sql.Rows, error) {
	return db.QueryContext(ctx, "SELECT id FROM tasks WHERE state = 'new'")
}

// Start marks the task worker holds running: fenced by the owner.
func Start(ctx context.Context, db *sql.DB, id int64, worker string) error {
	res, err := db.ExecContext(ctx, "UPDATE tasks SET state = 'running' WHERE id = $1 AND worker = $2", id, worker)
	if err != nil {
		return err
	}
	_, err = res.RowsAffected()
	return err
}

// Requeue claims a task for worker again, then hands it back.
func Requeue(ctx context.Context, db *sql.DB, id int64, worker string) error {
	if _, err := claim.Claim(ctx, db, id, worker, time.Now()); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, "UPDATE tasks SET state = 'new' WHERE id = $1", id) // want `DSQL003 unfenced-write: tasks's rows are claimed: claim/claim.go:13 claims the row \(sets worker\); this UPDATE changes state without checking the claim`
	return err
}
