package occ_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/dsqllint/dsqllint/runtime/occ"
)

// The two benchmarks run the same one-row transaction, by hand and through
// RunTxWithRetry, to measure what the retry loop adds when nothing conflicts.

const benchUpdate = "UPDATE counter SET n = n + 1 WHERE id = 1"

func BenchmarkBareTx(b *testing.B) {
	db := openDB(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, benchUpdate); err != nil {
			tx.Rollback()
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunTxWithRetry(b *testing.B) {
	db := openDB(b)
	ctx := context.Background()
	update := func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, benchUpdate)
		return err
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := occ.RunTxWithRetryVoid(ctx, db, update); err != nil {
			b.Fatal(err)
		}
	}
}
