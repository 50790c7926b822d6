// Package api calls the stores through their interfaces.
package api

import (
	"context"

	"example.com/decomod/store"
)

type Server struct {
	Shards store.Shards
	Queues store.Queues
}

// Move acquires a shard: the Shards store is only ever the retrying
// decorator's inner value, so the lock is retried.
func (s *Server) Move(ctx context.Context, id int) error { return s.Shards.Acquire(ctx, id) }

// Take claims a queue: nothing wraps Queues in a retry.
func (s *Server) Take(ctx context.Context, name string) error { return s.Queues.Claim(ctx, name) }

// TakeOnce claims a queue in a loop that re-runs the claim while another
// package's predicate says the conflict was a serialization failure.
func (s *Server) TakeOnce(ctx context.Context, name string) error {
	for {
		err := s.Queues.ClaimOnce(ctx, name)
		if !store.Contended(err) {
			return err
		}
	}
}
