package backends

import (
	"context"
	"database/sql"
)

func lockMySQL(ctx context.Context, tx *sql.Tx, id string) error {
	_, err := tx.ExecContext(ctx, "SELECT v FROM items WHERE id = ? FOR SHARE", id)
	return err
}
