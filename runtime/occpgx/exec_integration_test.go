package occpgx_test

// occpgx.ExecWithRetry against the real PostgreSQL of integration_test.go,
// whose default REPEATABLE READ makes a statement that writes a row changed
// since its snapshot fail with 40001, as Aurora DSQL does.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dsqllint/dsqllint/runtime/occ"
	"github.com/dsqllint/dsqllint/runtime/occpgx"
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
			pool := openPool(t)
			ctx := context.Background()
			const workers, each = 8, 25
			var c tally
			var succeeded atomic.Int64
			opts := []occ.Option{tiny(200), occ.WithOperation("Bump"), c.option()}
			errs := make(chan error, workers*each)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					for range each {
						tag, err := occpgx.ExecWithRetryOpts(ctx, pool, opts, query, 1)
						if err != nil {
							errs <- err
							continue
						}
						if !tag.Update() || tag.RowsAffected() != 1 {
							errs <- fmt.Errorf("command tag %q, want UPDATE 1", tag)
						}
						succeeded.Add(1)
					}
				}()
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
			if got := counterValue(t, pool); got != succeeded.Load() {
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
	pool  *pgxpool.Pool
	armed chan pgx.Tx
	errs  chan error
}

func newRival(pool *pgxpool.Pool) *rival {
	return &rival{pool: pool, armed: make(chan pgx.Tx, 8), errs: make(chan error, 8)}
}

// arm takes the row lock. It may run on the goroutine of the call under test,
// from a hook, so it reports errors through r.errs.
func (r *rival) arm(ctx context.Context) {
	tx, err := r.pool.Begin(ctx)
	if err == nil {
		if _, err = tx.Exec(ctx, "UPDATE counter SET n = n + 10 WHERE id = 1"); err != nil {
			tx.Rollback(ctx)
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
	var tx pgx.Tx
	select {
	case tx = <-r.armed:
	case err := <-r.errs:
		return err
	case <-time.After(30 * time.Second):
		return errors.New("rival: gave up waiting to be armed")
	}
	if err := awaitLockWaiter(ctx, r.pool); err != nil {
		tx.Rollback(ctx)
		return err
	}
	return tx.Commit(ctx)
}

// awaitLockWaiter waits until a session of this test's database waits for a
// lock, or gives up so that a broken choreography fails instead of hanging.
func awaitLockWaiter(ctx context.Context, pool *pgxpool.Pool) error {
	const q = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
	giveUp := time.Now().Add(30 * time.Second)
	for {
		var waiting int
		if err := pool.QueryRow(ctx, q).Scan(&waiting); err != nil {
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
	pool := openPool(t)
	ctx := context.Background()
	pc, err := pool.Acquire(ctx) // a *pgx.Conn works as well as the pool
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Release()
	r := newRival(pool)
	r.arm(ctx)
	var c tally
	type result struct {
		tag pgconn.CommandTag
		err error
	}
	done := make(chan result, 1)
	go func() {
		tag, err := occpgx.ExecWithRetryOpts(ctx, pc.Conn(), []occ.Option{tiny(3), c.option()}, lockAndBump, 1)
		done <- result{tag, err}
	}()
	if err := r.win(ctx); err != nil {
		t.Fatal(err)
	}
	got := <-done
	if got.err != nil {
		t.Fatal(got.err)
	}
	if got.tag.String() != "UPDATE 1" {
		t.Errorf("command tag %q, want UPDATE 1", got.tag)
	}
	if a, cf, rt := c.attempts.Load(), c.conflicts.Load(), c.retries.Load(); a != 2 || cf != 1 || rt != 1 {
		t.Errorf("attempts/conflicts/retries = %d/%d/%d, want 2/1/1", a, cf, rt)
	}
	var pe *pgconn.PgError
	if !errors.As(c.lastConflict, &pe) || pe.Code != "40001" {
		t.Errorf("conflict = %v, want PostgreSQL's 40001", c.lastConflict)
	}
	// The rival's 10 and the statement's 1, once.
	if got := counterValue(t, pool); got != 11 {
		t.Errorf("counter = %d, want 11", got)
	}
}

func TestExecWithRetryExhaustsWhenEveryAttemptLoses(t *testing.T) {
	pool := openPool(t)
	ctx := context.Background()
	r := newRival(pool)
	r.arm(ctx)
	var c tally
	// OnRetry runs before the backoff, after the lost attempt rolled back:
	// the next attempt will find the row locked again.
	rearm := occ.WithHooks(occ.Hooks{OnRetry: func(occ.Event) { r.arm(ctx) }})
	type result struct {
		tag pgconn.CommandTag
		err error
	}
	done := make(chan result, 1)
	go func() {
		tag, err := occpgx.ExecWithRetryOpts(ctx, pool, []occ.Option{tiny(2), c.option(), rearm}, lockAndBump, 1)
		done <- result{tag, err}
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
	if got.tag != (pgconn.CommandTag{}) {
		t.Errorf("a failed call returned command tag %q", got.tag)
	}
	if a, cf, rt := c.attempts.Load(), c.conflicts.Load(), c.retries.Load(); a != 3 || cf != 3 || rt != 2 {
		t.Errorf("attempts/conflicts/retries = %d/%d/%d, want 3/3/2", a, cf, rt)
	}
	// Three rivals committed; every attempt of the statement rolled back.
	if got := counterValue(t, pool); got != 30 {
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
			pool := openPool(t)
			var c tally
			tag, err := occpgx.ExecWithRetryOpts(context.Background(), pool, []occ.Option{tiny(5), c.option()}, tt.query, 1)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != tt.code {
				t.Fatalf("err = %v, want PostgreSQL's %s", err, tt.code)
			}
			if !tt.check(err) {
				t.Errorf("err = %#v, wrong type", err)
			}
			if tag != (pgconn.CommandTag{}) {
				t.Errorf("a failed call returned command tag %q", tag)
			}
			if a, r := c.attempts.Load(), c.retries.Load(); a != 1 || r != 0 {
				t.Errorf("attempts/retries = %d/%d, want 1/0", a, r)
			}
			if got := counterValue(t, pool); got != 0 {
				t.Errorf("counter = %d, want 0", got)
			}
		})
	}
}

func TestExecWithRetryWithDefaults(t *testing.T) {
	pool := openPool(t)
	tag, err := occpgx.ExecWithRetry(context.Background(), pool, "UPDATE counter SET n = n + $1 WHERE id = 1", 5)
	if err != nil {
		t.Fatal(err)
	}
	if tag.String() != "UPDATE 1" {
		t.Errorf("command tag %q, want UPDATE 1", tag)
	}
	if got := counterValue(t, pool); got != 5 {
		t.Errorf("counter = %d, want 5", got)
	}
}

func TestExecWithRetryOptsRejectsBadOptionsBeforeBeginning(t *testing.T) {
	tests := []struct {
		opt  occ.Option
		want string
	}{
		{occ.WithTxOptions(&sql.TxOptions{ReadOnly: true}), "occ: occpgx.ExecWithRetryOpts got transaction options of type *sql.TxOptions; use occpgx.WithTxOptions"},
		{occ.WithConfig(occ.RetryConfig{MaxRetries: -1}), "MaxRetries is -1"},
	}
	for _, tt := range tests {
		_, err := occpgx.ExecWithRetryOpts(context.Background(), noBegin{t}, []occ.Option{tt.opt}, "SELECT 1")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("err = %v, want one containing %q", err, tt.want)
		}
	}
}
