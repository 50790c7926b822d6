// Package backends keeps one file per database: the PostgreSQL file and
// the shared one are checked, the MySQL file is not.
package backends

import (
	"context"
	"database/sql"
)

func Count(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, "TRUNCATE items") // want `DSQL105`
	return err
}
