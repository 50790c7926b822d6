// Package claim hands tasks to workers: it assigns the owner column the
// completions in package complete compare.
package claim

import (
	"context"
	"database/sql"
	"time"
)

// Claim takes a free or expired task for worker.
func Claim(ctx context.Context, db *sql.DB, id int64, worker string, until time.Time) (bool, error) {
	res, err := db.ExecContext(ctx, "UPDATE tasks SET worker = $1, locked_until = $2 WHERE id = $3 AND (locked_until IS NULL OR locked_until < now())", worker, until, id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
