// Package audit writes an audit row on the caller's transaction, and
// tells a listener.
package audit

import (
	"context"
	"database/sql"
	"fmt"
)

// Note only runs a statement on the transaction: a retry may repeat it.
func Note(ctx context.Context, tx *sql.Tx, id int64) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO audit (item, note) VALUES ($1, $2)", id, fmt.Sprintf("moved %d", id))
	return err
}

var listeners = make(chan int64, 16)

// Notify tells a listener: a retry would tell it twice.
func Notify(id int64) {
	listeners <- id
}
