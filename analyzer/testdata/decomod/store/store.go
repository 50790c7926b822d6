// Package store declares the stores and wraps one of them in a retrying
// decorator, as persistence layers wrap their clients.
package store

import (
	"context"
	"strings"
)

// Shards is decorated: every call goes through Retrying.
type Shards interface {
	Acquire(ctx context.Context, id int) error
}

// Queues is not.
type Queues interface {
	Claim(ctx context.Context, name string) error
	ClaimOnce(ctx context.Context, name string) error
}

// Contended reports a serialization failure: its callers' loops re-run on
// it, whatever it is called.
func Contended(err error) bool {
	return err != nil && strings.Contains(err.Error(), "SQLSTATE 40001")
}

// Retrying re-runs the calls of the store it wraps on a serialization
// failure.
type Retrying struct{ Inner Shards }

func (r *Retrying) Acquire(ctx context.Context, id int) error {
	for {
		err := r.Inner.Acquire(ctx, id)
		if err == nil || !strings.Contains(err.Error(), "40001") {
			return err
		}
	}
}
