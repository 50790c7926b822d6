package backends

import (
	"context"
	"database/sql"
)

func lockPostgres(ctx context.Context, tx *sql.Tx, id string) error {
	_, err := tx.ExecContext(ctx, "SELECT v FROM items WHERE id = $1 FOR SHARE", id) // want `DSQL001`
	return err
}
