// Package sql is a stub of entgo.io/ent/dialect/sql for tests.
package sql

type LockAction string

const (
	NoWait     LockAction = "NOWAIT"
	SkipLocked LockAction = "SKIP LOCKED"
)

type LockOption func(*LockOptions)
type LockOptions struct{ Action LockAction }

func WithLockAction(action LockAction) LockOption { return func(o *LockOptions) { o.Action = action } }

type Selector struct{}

func (s *Selector) ForShare(opts ...LockOption) *Selector  { return s }
func (s *Selector) ForUpdate(opts ...LockOption) *Selector { return s }
