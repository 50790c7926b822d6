package deco // want package:`txflow\(deco\{passes:1 impls:1 calls:1 retries:1\}\)`

// Package deco decorates an interface's method with a retry: the fact
// carries the implementation (for the join to find the decorator) and
// the loop's retry.

import (
	"context"
	"strings"
)

// Store saves.
type Store interface {
	Save(ctx context.Context) error
}

// Retrying re-runs Save on a serialization failure.
type Retrying struct{ Inner Store }

// Save runs the inner Save until it does not fail with 40001.
func (r Retrying) Save(ctx context.Context) error {
	for {
		err := r.Inner.Save(ctx)
		if err == nil || !strings.Contains(err.Error(), "40001") {
			return err
		}
	}
}
