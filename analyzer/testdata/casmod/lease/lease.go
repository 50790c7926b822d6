// Package lease keeps leases through a store it declares and never
// implements: the PostgreSQL store, in package pg, does not import it.
package lease

import (
	"context"
	"database/sql"
	"errors"
)

// Store renews a lease by compare-and-swap on its version.
type Store interface {
	Renew(ctx context.Context, id string, token int64) (sql.Result, error)
}

// Keep drops the result of the compare-and-swap: a lost race looks like
// success.
func Keep(ctx context.Context, s Store) error {
	_, err := s.Renew(ctx, "a", 1) // want `DSQL004 unchecked-cas: the result \(lease.Store\).Renew returns from a compare-and-swap write is discarded`
	return err
}

// KeepChecked reads the count.
func KeepChecked(ctx context.Context, s Store) error {
	res, err := s.Renew(ctx, "a", 1)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return errors.New("lease lost")
	}
	return nil
}
