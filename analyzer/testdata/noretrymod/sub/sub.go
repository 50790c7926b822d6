// Package sub reads messages in transactions it begins; nothing in the
// module retries on SQLSTATE 40001, so every lock is unretried, followed
// or not.
package sub

import (
	"context"
	"database/sql"

	"example.com/noretrymod/adapter"
)

type Subscriber struct {
	DB      *sql.DB
	Offsets adapter.Offsets
}

// Poll runs the adapter's statement in a transaction it begins.
func (s *Subscriber) Poll(ctx context.Context, group string) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q := s.Offsets.NextOffset(group)
	if _, err := tx.QueryContext(ctx, q.SQL, q.Args...); err != nil {
		return err
	}
	return tx.Commit()
}

// Ack locks on the transaction its caller hands it: the module shows no
// caller, and no retry anywhere.
func Ack(ctx context.Context, tx *sql.Tx, group string) error {
	_, err := tx.ExecContext(ctx, "SELECT 1 FROM offsets WHERE consumer_group = $1 FOR UPDATE", group) // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs on the transaction sub.Ack is handed by its callers, and nothing in this module retries on SQLSTATE 40001`
	return err
}
