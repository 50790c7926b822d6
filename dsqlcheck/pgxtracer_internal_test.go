package dsqlcheck

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/dsqllint/dsqllint/internal/pgtest"
)

// The tracer keeps no state for connections that have closed: pgx says
// nothing of a close, so the state is swept when new connections come.
func TestTracerForgetsClosedConnections(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	tr := New().Tracer().(*tracer)
	for range 40 {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Tracer = tr
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
		conn.Close(ctx)
	}
	tr.mu.Lock()
	n := len(tr.conns)
	tr.mu.Unlock()
	if n > 16 {
		t.Errorf("the tracer holds the state of %d connections, 40 of them closed", n)
	}
}
