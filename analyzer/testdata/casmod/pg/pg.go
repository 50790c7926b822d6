// Package pg is the PostgreSQL store of package lease, which it does not
// import: Go interfaces are met, not declared.
package pg

import (
	"context"
	"database/sql"
)

type Store struct{ db *sql.DB }

func New(db *sql.DB) *Store { return &Store{db: db} }

// Renew hands back the compare-and-swap's result for the caller to read.
func (s *Store) Renew(ctx context.Context, id string, token int64) (sql.Result, error) {
	return s.db.ExecContext(ctx, "UPDATE leases SET version = $1 WHERE id = $2 AND version = $3", token+1, id, token)
}
