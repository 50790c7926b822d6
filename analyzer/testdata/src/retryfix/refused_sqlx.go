package retryfix

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// sqlx's own methods: the helper hands the closure a *sql.Tx.
func SqlxGet(ctx context.Context, x *sqlx.DB) error {
	tx, err := x.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.GetContext(ctx, &n, "SELECT n FROM t WHERE id = 8 FOR UPDATE"); err != nil { // want `DSQL005 .* \(no -fix: line 17 calls sqlx's GetContext, which the helper's \*sql.Tx does not have\)`
		return err
	}
	return tx.Commit()
}
