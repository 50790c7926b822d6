// Package retry re-runs a function on a serialization failure: a retry // want package:"txflow"
// helper recognised by its body, in a package of its own.
package retry

import (
	"context"
	"errors"
)

type sqlState interface{ SQLState() string }

// Do runs fn again while it fails with SQLSTATE 40001.
func Do(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		var s sqlState
		if errors.As(err, &s) && s.SQLState() == "40001" {
			continue
		}
		return err
	}
}
