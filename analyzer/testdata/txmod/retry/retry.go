// Package retry holds the module's retry decorators.
package retry

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// Do re-runs fn while it fails with a serialization failure (40001).
func Do(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		if err != nil && strings.Contains(err.Error(), "40001") {
			continue
		}
		return err
	}
}

// Transient re-runs fn on broken connections only: a lost conflict is
// never re-run.
func Transient(ctx context.Context, fn func() error) error {
	for i := 0; ; i++ {
		err := fn()
		if errors.Is(err, sql.ErrConnDone) && i < 3 {
			continue
		}
		return err
	}
}
