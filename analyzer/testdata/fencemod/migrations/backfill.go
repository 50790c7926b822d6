// Package migrations holds the schema and the Go migrations the migrator
// runs once: no other process races for the rows they write, so DSQL003
// does not judge them.
package migrations

import (
	"context"
	"database/sql"
)

// Backfill finishes a task by its key, once, at deploy.
func Backfill(ctx context.Context, tx *sql.Tx, id int64) error {
	_, err := tx.ExecContext(ctx, "UPDATE tasks SET state = 'done' WHERE id = $1", id)
	return err
}
