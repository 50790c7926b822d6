// Package elect hands leadership over through sqlc's generated methods,
// given the transaction as their db argument.
package elect

import (
	"context"
	"database/sql"
	"strings"

	"example.com/leadermod/db/leaderdb"
)

var q = leaderdb.New()

// Handover locks the leader row, then writes it by key in the same
// transaction: the lock makes a racing claim fail at COMMIT.
func Handover(ctx context.Context, db *sql.DB, name string, to sql.NullString, until sql.NullTime) error {
	for {
		err := handoverOnce(ctx, db, name, to, until)
		if err != nil && strings.Contains(err.Error(), "40001") {
			continue
		}
		return err
	}
}

func handoverOnce(ctx context.Context, db *sql.DB, name string, to sql.NullString, until sql.NullTime) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := q.LockLeader(ctx, tx, name); err != nil {
		return err
	}
	if err := q.SetLeader(ctx, tx, name, to, until); err != nil {
		return err
	}
	return tx.Commit()
}

// Force writes the leader with no lock and no check of the claim.
func Force(ctx context.Context, db *sql.DB, name string, to sql.NullString, until sql.NullTime) error {
	return q.ForceLeader(ctx, db, name, to, until)
}
