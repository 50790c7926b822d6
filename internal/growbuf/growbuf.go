// Package growbuf lends slices to grow in and keeps exact copies of them.
//
// An analysis that appends an entry per item to a slice its Result keeps
// holds the last doubled array (up to twice what it needs) and leaves the
// smaller ones as garbage, in every package. Growing in a lent array and
// keeping a copy of the exact size allocates each package's slice once;
// the grown array serves the next package.
package growbuf

import (
	"slices"
	"sync"
)

// Pool lends slices of T. The zero Pool is ready to use.
type Pool[T any] struct{ p sync.Pool }

// Get returns an empty slice, with the capacity an earlier user grew when
// one is free.
func (p *Pool[T]) Get() []T {
	if b, ok := p.p.Get().(*[]T); ok {
		return (*b)[:0]
	}
	return nil
}

// Keep returns an exact copy of s (nil when s is empty) and lends s's
// array to a later Get. s must not be used after.
func (p *Pool[T]) Keep(s []T) []T {
	var out []T
	if len(s) > 0 {
		out = slices.Clone(s)
	}
	clear(s) // what the entries point to is the keeper's, not the pool's
	s = s[:0]
	p.p.Put(&s)
	return out
}
