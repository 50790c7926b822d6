package occpgx_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/dsqllint/dsqllint/runtime/occpgx"
)

// The two benchmarks run the same one-row transaction, by hand and through
// RunTxWithRetry, to measure what the retry loop adds when nothing conflicts.

const benchUpdate = "UPDATE counter SET n = n + 1 WHERE id = 1"

func BenchmarkBareTx(b *testing.B) {
	pool := openPool(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		tx, err := pool.BeginTx(ctx, pgx.TxOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(ctx, benchUpdate); err != nil {
			tx.Rollback(ctx)
			b.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunTxWithRetry(b *testing.B) {
	pool := openPool(b)
	ctx := context.Background()
	update := func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, benchUpdate)
		return err
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := occpgx.RunTxWithRetryVoid(ctx, pool, update); err != nil {
			b.Fatal(err)
		}
	}
}
