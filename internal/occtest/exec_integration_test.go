package occtest_test

// ExecWithRetry against the real PostgreSQL of integration_test.go, whose
// default REPEATABLE READ makes a statement that writes a row changed since
// its snapshot fail with 40001, as Aurora DSQL does, instead of waiting its
// turn as READ COMMITTED would.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dsqllint/dsqllint/runtime/occ"
)

// Two single statements that increment counter row $1, as code ported from
// PostgreSQL writes them. Neither is safe without a retry: FOR UPDATE does
// not make later writers wait on DSQL, and at REPEATABLE READ both fail with
// 40001 when another writer got to the row first.
const (
	lockAndBump = `WITH t AS (SELECT id, n FROM counter WHERE id = $1 FOR UPDATE)
		UPDATE counter SET n = counter.n + 1 FROM t WHERE counter.id = t.id`
	readAndBump = `UPDATE counter SET n = (SELECT n FROM counter WHERE id = $1) + 1 WHERE id = $1`
)

func TestExecWithRetryConcurrentStatementsAreExact(t *testing.T) {
	for name, query := range map[string]string{"FOR UPDATE": lockAndBump, "read-modify-write": readAndBump} {
		t.Run(name, func(t *testing.T) {
			db := openDB(t)
			ctx := context.Background()
			const workers, each = 8, 25
			var c tally
			var succeeded atomic.Int64
			opts := []occ.Option{tiny(200), occ.WithOperation("Bump"), c.option()}
			errs := make(chan error, workers*each)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					<-start
					for range each {
						res, err := occ.ExecWithRetryOpts(ctx, db, opts, query, 1)
						if err != nil {
							errs <- err
							continue
						}
						if n, err := res.RowsAffected(); n != 1 || err != nil {
							errs <- fmt.Errorf("RowsAffected = %d, %v; want 1", n, err)
						}
						succeeded.Add(1)
					}
				})
			}
			close(start)
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			// Every call succeeded, each added exactly once: nothing lost
			// to a conflict, nothing doubled by a retry.
			if got := succeeded.Load(); got != workers*each {
				t.Errorf("%d calls succeeded, want all %d", got, workers*each)
			}
			if got := counterValue(t, db); got != succeeded.Load() {
				t.Errorf("counter = %d, want %d, one per successful call", got, succeeded.Load())
			}
			if c.retries.Load() == 0 {
				t.Error("no retry observed: the test did not exercise conflicts")
			}
			var attempts int64
			for _, e := range c.done {
				attempts += int64(e.Attempt)
				if e.Operation != "Bump" {
					t.Errorf("OnDone saw operation %q, want Bump", e.Operation)
				}
			}
			if attempts != c.attempts.Load() || attempts != workers*each+c.conflicts.Load() {
				t.Errorf("attempts %d (hooks saw %d) != %d commits + %d conflicts", attempts, c.attempts.Load(), workers*each, c.conflicts.Load())
			}
			t.Logf("%d statements, %d conflicts retried", workers*each, c.retries.Load())
		})
	}
}

// rival makes the statement under test lose an attempt, deterministically: it
// holds counter row 1 in an open transaction that adds 10, waits until the
// statement is queued behind that row lock, so that the statement's snapshot
// is older than the rival's write, then commits; the statement then fails
// with 40001. Arm it once per attempt that should lose.
type rival struct {
	db    *sql.DB
	armed chan *sql.Tx
	errs  chan error
}

func newRival(db *sql.DB) *rival {
	return &rival{db: db, armed: make(chan *sql.Tx, 8), errs: make(chan error, 8)}
}

// arm takes the row lock. It may run on the goroutine of the call under test,
// from a hook, so it reports errors through r.errs.
func (r *rival) arm(ctx context.Context) {
	tx, err := r.db.BeginTx(ctx, nil)
	if err == nil {
		if _, err = tx.ExecContext(ctx, "UPDATE counter SET n = n + 10 WHERE id = 1"); err != nil {
			tx.Rollback()
		}
	}
	if err != nil {
		r.errs <- fmt.Errorf("rival: %w", err)
		return
	}
	r.armed <- tx
}

// win commits the next armed transaction once the statement waits for it.
func (r *rival) win(ctx context.Context) error {
	var tx *sql.Tx
	select {
	case tx = <-r.armed:
	case err := <-r.errs:
		return err
	case <-time.After(30 * time.Second):
		return errors.New("rival: gave up waiting to be armed")
	}
	if err := awaitLockWaiter(ctx, r.db); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// awaitLockWaiter waits until a session of this test's database waits for a
// lock, or gives up so that a broken choreography fails instead of hanging.
func awaitLockWaiter(ctx context.Context, db *sql.DB) error {
	const q = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
	giveUp := time.Now().Add(30 * time.Second)
	for {
		var waiting int
		if err := db.QueryRowContext(ctx, q).Scan(&waiting); err != nil {
			return err
		}
		if waiting > 0 {
			return nil
		}
		if time.Now().After(giveUp) {
			return errors.New("rival: the statement never waited for the row lock")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestExecWithRetryRetriesALostConflictOnce(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	conn, err := db.Conn(ctx) // a *sql.Conn works as well as the *sql.DB
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := newRival(db)
	r.arm(ctx)
	var c tally
	type result struct {
		res sql.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := occ.ExecWithRetryOpts(ctx, conn, []occ.Option{tiny(3), c.option()}, lockAndBump, 1)
		done <- result{res, err}
	}()
	if err := r.win(ctx); err != nil {
		t.Fatal(err)
	}
	got := <-done
	if got.err != nil {
		t.Fatal(got.err)
	}
	if n, err := got.res.RowsAffected(); n != 1 || err != nil {
		t.Errorf("RowsAffected = %d, %v; want 1", n, err)
	}
	if a, cf, rt := c.attempts.Load(), c.conflicts.Load(), c.retries.Load(); a != 2 || cf != 1 || rt != 1 {
		t.Errorf("attempts/conflicts/retries = %d/%d/%d, want 2/1/1", a, cf, rt)
	}
	var pe *pgconn.PgError
	if !errors.As(c.lastConflict, &pe) || pe.Code != "40001" {
		t.Errorf("conflict = %v, want PostgreSQL's 40001", c.lastConflict)
	}
	// The rival's 10 and the statement's 1, once.
	if got := counterValue(t, db); got != 11 {
		t.Errorf("counter = %d, want 11", got)
	}
}

func TestExecWithRetryExhaustsWhenEveryAttemptLoses(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	r := newRival(db)
	r.arm(ctx)
	var c tally
	// OnRetry runs before the backoff, after the lost attempt rolled back:
	// the next attempt will find the row locked again.
	rearm := occ.WithHooks(occ.Hooks{OnRetry: func(occ.Event) { r.arm(ctx) }})
	type result struct {
		res sql.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := occ.ExecWithRetryOpts(ctx, db, []occ.Option{tiny(2), c.option(), rearm}, lockAndBump, 1)
		done <- result{res, err}
	}()
	for range 3 {
		if err := r.win(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := <-done
	var ex *occ.RetriesExhaustedError
	if !errors.As(got.err, &ex) || ex.Attempts != 3 {
		t.Fatalf("err = %v, want RetriesExhaustedError after 3 attempts", got.err)
	}
	var pe *pgconn.PgError
	if !errors.As(got.err, &pe) || pe.Code != "40001" {
		t.Errorf("errors.As does not reach the 40001 through %v", got.err)
	}
	if got.res != nil {
		t.Error("a failed call returned a result")
	}
	if a, cf, rt := c.attempts.Load(), c.conflicts.Load(), c.retries.Load(); a != 3 || cf != 3 || rt != 2 {
		t.Errorf("attempts/conflicts/retries = %d/%d/%d, want 3/3/2", a, cf, rt)
	}
	// Three rivals committed; every attempt of the statement rolled back.
	if got := counterValue(t, db); got != 30 {
		t.Errorf("counter = %d, want 30", got)
	}
}

func TestExecWithRetryReturnsOtherErrorsAtOnce(t *testing.T) {
	tests := []struct {
		name, query string
		code        string
		check       func(error) bool
	}{
		{"unique violation, unchanged", "INSERT INTO counter VALUES ($1, 0)", "23505",
			func(err error) bool { _, ok := err.(*pgconn.PgError); return ok }},
		{"unsupported feature, with a hint", "SELECT count(*) FROM counter WHERE id = $1 FOR UPDATE", "0A000",
			func(err error) bool {
				var ue *occ.UnsupportedFeatureError
				return errors.As(err, &ue)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openDB(t)
			var c tally
			res, err := occ.ExecWithRetryOpts(context.Background(), db, []occ.Option{tiny(5), c.option()}, tt.query, 1)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != tt.code {
				t.Fatalf("err = %v, want PostgreSQL's %s", err, tt.code)
			}
			if !tt.check(err) {
				t.Errorf("err = %#v, wrong type", err)
			}
			if res != nil {
				t.Error("a failed call returned a result")
			}
			if a, r := c.attempts.Load(), c.retries.Load(); a != 1 || r != 0 {
				t.Errorf("attempts/retries = %d/%d, want 1/0", a, r)
			}
			if got := counterValue(t, db); got != 0 {
				t.Errorf("counter = %d, want 0", got)
			}
		})
	}
}

func TestExecWithRetryWithDefaults(t *testing.T) {
	db := openDB(t)
	res, err := occ.ExecWithRetry(context.Background(), db, "UPDATE counter SET n = n + $1 WHERE id = 1", 5)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := res.RowsAffected(); n != 1 || err != nil {
		t.Errorf("RowsAffected = %d, %v; want 1", n, err)
	}
	if got := counterValue(t, db); got != 5 {
		t.Errorf("counter = %d, want 5", got)
	}
}
