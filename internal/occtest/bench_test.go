package occtest_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

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
		bareTx(b, ctx, db)
	}
}

func bareTx(b *testing.B, ctx context.Context, db *sql.DB) {
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

// BenchmarkOverhead alternates the two forms within one loop, swapping their
// order each time, so that drift in the server's speed (large on a shared
// machine) hits both alike. It reports each form's mean and the difference.
func BenchmarkOverhead(b *testing.B) {
	db := openDB(b)
	ctx := context.Background()
	update := func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, benchUpdate)
		return err
	}
	helper := func() {
		if err := occ.RunTxWithRetryVoid(ctx, db, update); err != nil {
			b.Fatal(err)
		}
	}
	var bareTime, helperTime time.Duration
	n := 0
	for b.Loop() {
		t0 := time.Now()
		if n%2 == 0 {
			bareTx(b, ctx, db)
		} else {
			helper()
		}
		t1 := time.Now()
		if n%2 == 0 {
			helper()
		} else {
			bareTx(b, ctx, db)
		}
		t2 := time.Now()
		if n%2 == 0 {
			bareTime, helperTime = bareTime+t1.Sub(t0), helperTime+t2.Sub(t1)
		} else {
			helperTime, bareTime = helperTime+t1.Sub(t0), bareTime+t2.Sub(t1)
		}
		n++
	}
	b.ReportMetric(float64(bareTime.Nanoseconds())/float64(n), "bare-ns/tx")
	b.ReportMetric(float64(helperTime.Nanoseconds())/float64(n), "helper-ns/tx")
	b.ReportMetric(100*float64(helperTime-bareTime)/float64(bareTime), "overhead-%")
}
