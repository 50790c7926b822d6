// Package driver retries what its driver does while the driver's own
// predicate, an interface method, says the error is retryable; the
// implementations live in packages that do not import this one.
package driver

import "context"

// Driver is a store's database.
type Driver interface {
	Apply(ctx context.Context) error
	IsRetryableApplyError(err error) bool
	Prune(ctx context.Context) error
	IsTransientPruneError(err error) bool
}

// Store runs a Driver.
type Store struct{ d Driver }

// Apply re-runs the driver's transaction on what its predicate calls
// retryable: SQLSTATE 40001, in the PostgreSQL driver.
func (s *Store) Apply(ctx context.Context) (err error) {
	for attempt := 0; attempt < 3; attempt++ {
		err = s.d.Apply(ctx)
		if err == nil || !s.d.IsRetryableApplyError(err) {
			return err
		}
	}
	return err
}

// Prune re-runs on a timeout only: no conflict is retried.
func (s *Store) Prune(ctx context.Context) (err error) {
	for attempt := 0; attempt < 3; attempt++ {
		err = s.d.Prune(ctx)
		if err == nil || !s.d.IsTransientPruneError(err) {
			return err
		}
	}
	return err
}
