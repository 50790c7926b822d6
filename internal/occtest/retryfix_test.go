package occtest_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dsqllint/dsqllint/runtime/occ"
)

// The transaction DSQL005's -fix rewrites, before and after, as the
// analyzer's golden test has it (analyzer/testdata/src/retryfix:
// Reserve in accepted.go and accepted.go.golden): a row locked FOR
// UPDATE, then written from what was read; each call also records itself
// once. pg_sleep holds the lock long enough for the callers to meet; the
// fixed form is given more attempts than the fix's default, for 8
// callers on one row.

func reserveUnfixed(ctx context.Context, db *sql.DB, call int) (int64, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var n int64
	if err := tx.QueryRowContext(ctx, "SELECT n FROM counter WHERE id = 1 FOR UPDATE").Scan(&n); err != nil {
		return 0, fmt.Errorf("read counter: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "SELECT pg_sleep(0.02)"); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE counter SET n = $1 WHERE id = 1", n+1); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO calls (call) VALUES ($1)", call); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return n + 1, nil
}

func reserveFixed(ctx context.Context, db *sql.DB, call int) (int64, error) {
	return occ.RunTxWithRetry(ctx, db, func(tx *sql.Tx) (int64, error) {
		var n int64
		if err := tx.QueryRowContext(ctx, "SELECT n FROM counter WHERE id = 1 FOR UPDATE").Scan(&n); err != nil {
			return 0, fmt.Errorf("read counter: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "SELECT pg_sleep(0.02)"); err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE counter SET n = $1 WHERE id = 1", n+1); err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO calls (call) VALUES ($1)", call); err != nil {
			return 0, err
		}
		return n + 1, nil
	}, occ.WithConfig(contended))
}

// contended is the fix's default retry with room for 8 callers on one
// row: more attempts, shorter waits.
var contended = func() occ.RetryConfig {
	c := occ.DefaultRetryConfig()
	c.MaxRetries, c.BaseDelay, c.MaxDelay = 100, 2*time.Millisecond, 50*time.Millisecond
	return c
}()

// TestRetryFixUnderContention runs each form from 8 callers at once at
// REPEATABLE READ: the unfixed one fails with 40001, the fixed one
// commits every call exactly once and loses no increment.
func TestRetryFixUnderContention(t *testing.T) {
	const callers, each = 8, 5
	run := func(t *testing.T, reserve func(context.Context, *sql.DB, int) (int64, error)) (db *sql.DB, errs []error, got map[int64]int) {
		db = openDB(t)
		mustExec(t, db, "CREATE TABLE calls (call int NOT NULL)")
		ctx := context.Background()
		var mu sync.Mutex
		got = map[int64]int{}
		start := make(chan struct{})
		var wg sync.WaitGroup
		for c := 0; c < callers; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := 0; i < each; i++ {
					n, err := reserve(ctx, db, c*each+i)
					mu.Lock()
					if err != nil {
						errs = append(errs, err)
					} else {
						got[n]++
					}
					mu.Unlock()
				}
			}()
		}
		close(start)
		wg.Wait()
		return db, errs, got
	}

	t.Run("unfixed", func(t *testing.T) {
		db, errs, got := run(t, reserveUnfixed)
		conflicts := 0
		for _, err := range errs {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "40001" {
				conflicts++
			}
		}
		if conflicts == 0 {
			t.Fatalf("no call failed with 40001 (errors: %v)", errs)
		}
		if n := counterValue(t, db); n != int64(len(got)) {
			t.Errorf("counter %d after %d successful calls", n, len(got))
		}
		t.Logf("unfixed: %d of %d calls failed with 40001", conflicts, callers*each)
	})
	t.Run("fixed", func(t *testing.T) {
		db, errs, got := run(t, reserveFixed)
		if len(errs) > 0 {
			t.Fatalf("%d calls failed: %v", len(errs), errs[0])
		}
		if n := counterValue(t, db); n != callers*each {
			t.Errorf("counter %d, want %d: an increment was lost", n, callers*each)
		}
		for v := int64(1); v <= callers*each; v++ {
			if got[v] != 1 {
				t.Errorf("value %d returned %d times", v, got[v])
			}
		}
		var calls, distinct int
		if err := db.QueryRow("SELECT count(*), count(DISTINCT call) FROM calls").Scan(&calls, &distinct); err != nil {
			t.Fatal(err)
		}
		if calls != callers*each || distinct != callers*each {
			t.Errorf("%d commits recorded for %d distinct calls, want %d each: a call committed twice or not at all", calls, distinct, callers*each)
		}
	})
}
