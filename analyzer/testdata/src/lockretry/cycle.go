package lockretry

import (
	"context"
	"database/sql"
)

// Claimer is a store's interface; claimStore runs the lock, and
// claimWrap (authorization, metrics) forwards to the store it wraps. No
// call in view claims through the interface but the wrapper's own: the
// wrapper calling the interface it implements is no retry.
type Claimer interface {
	Claim(ctx context.Context, worker string) (string, error)
}

type claimStore struct{ db *sql.DB }

func (s *claimStore) Claim(ctx context.Context, worker string) (string, error) {
	var id string
	err := s.db.QueryRowContext(ctx, "SELECT id FROM claims WHERE id = $1 FOR UPDATE", worker).Scan(&id) // want `DSQL005 lock-without-retry`
	return id, err
}

type claimWrap struct{ inner Claimer }

func (w claimWrap) Claim(ctx context.Context, worker string) (string, error) {
	return w.inner.Claim(ctx, worker)
}

// The twin: a wrapper that re-runs the store inside the module's retry
// helper, and whose callers are out of view, keeps its store's lock quiet.
type Leaser interface {
	Lease(ctx context.Context, worker string) (string, error)
}

type leaseStore struct{ db *sql.DB }

func (s *leaseStore) Lease(ctx context.Context, worker string) (string, error) {
	var id string
	err := s.db.QueryRowContext(ctx, "SELECT id FROM leases WHERE id = $1 FOR UPDATE", worker).Scan(&id)
	return id, err
}

type leaseRetrier struct{ inner Leaser }

func (r leaseRetrier) Lease(ctx context.Context, worker string) (id string, err error) {
	err = withConflictRetry(ctx, func() error {
		id, err = r.inner.Lease(ctx, worker)
		return err
	})
	return id, err
}
