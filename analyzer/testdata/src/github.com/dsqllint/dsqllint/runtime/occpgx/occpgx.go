// Package occpgx is a stub of dsqllint's runtime/occpgx for tests.
package occpgx

import (
	"context"

	"github.com/jackc/pgx/v5"
)

func ExecCAS(ctx context.Context, tx pgx.Tx, query string, args ...any) error { return nil }
