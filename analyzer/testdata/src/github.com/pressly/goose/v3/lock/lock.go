// Package lock stands in for goose's session lockers.
package lock

// SessionLocker locks a migration run.
type SessionLocker interface{}

// NewPostgresSessionLocker returns a locker that takes pg_try_advisory_lock.
func NewPostgresSessionLocker() (SessionLocker, error) { return nil, nil }
