package occtest_test

// Integration tests against a real PostgreSQL, which produces real 40001s:
// at REPEATABLE READ (the server's default here, as on Aurora DSQL) for a
// write to a row changed since the snapshot, and at SERIALIZABLE for write
// skew, reported at COMMIT.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/dsqllint/dsqllint/internal/pgtest"
	"github.com/dsqllint/dsqllint/runtime/occ"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// openDB opens a fresh database holding counter(id 1, n 0).
func openDB(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("pgx", pgtest.NewDatabase(tb))
	if err != nil {
		tb.Fatal(err)
	}
	if os.Getenv("DSQLCHECK") == "1" {
		// Every statement through dsqlcheck, observing only: these tests
		// use PostgreSQL's SERIALIZABLE and READ COMMITTED on purpose, to
		// make conflicts DSQL makes otherwise. For the checker's cost.
		db = checked(tb, db)
	}
	tb.Cleanup(func() { db.Close() })
	mustExec(tb, db, "CREATE TABLE counter (id int PRIMARY KEY, n bigint NOT NULL)")
	mustExec(tb, db, "INSERT INTO counter VALUES (1, 0)")
	return db
}

func mustExec(tb testing.TB, db *sql.DB, query string, args ...any) {
	tb.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
}

func counterValue(tb testing.TB, db *sql.DB) int64 {
	tb.Helper()
	var n int64
	if err := db.QueryRow("SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

// forceConflict makes tx's next write fail with a real 40001: tx takes its
// snapshot, another connection commits a change to the row, then tx writes
// the row.
func forceConflict(ctx context.Context, db *sql.DB, tx *sql.Tx) error {
	var n int64
	if err := tx.QueryRowContext(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE counter SET n = $1 WHERE id = 1", n+100)
	return err
}

// tally counts the hooks' events.
type tally struct {
	attempts, conflicts, retries, conditionFailed atomic.Int64
	mu                                            sync.Mutex
	done                                          []occ.Event
	lastConflict                                  error
}

func (c *tally) option() occ.Option {
	return occ.WithHooks(occ.Hooks{
		OnAttempt: func(occ.Event) { c.attempts.Add(1) },
		OnConflict: func(e occ.Event) {
			c.conflicts.Add(1)
			c.mu.Lock()
			c.lastConflict = e.Err
			c.mu.Unlock()
		},
		OnRetry:           func(occ.Event) { c.retries.Add(1) },
		OnConditionFailed: func(occ.Event) { c.conditionFailed.Add(1) },
		OnDone: func(e occ.Event) {
			c.mu.Lock()
			c.done = append(c.done, e)
			c.mu.Unlock()
		},
	})
}

func tiny(maxRetries int) occ.Option {
	return occ.WithConfig(occ.RetryConfig{MaxRetries: maxRetries, BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond, JitterFactor: 1})
}

func TestConcurrentIncrementsAreExact(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	const workers, each = 8, 25
	var c tally
	increment := func(tx *sql.Tx) (int64, error) {
		var n int64
		if err := tx.QueryRowContext(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
			return 0, err
		}
		_, err := tx.ExecContext(ctx, "UPDATE counter SET n = $1 WHERE id = 1", n+1)
		return n + 1, err
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for range workers {
		wg.Go(func() {
			for range each {
				if _, err := occ.RunTxWithRetry(ctx, db, increment, tiny(200), occ.WithOperation("Increment"), c.option()); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := counterValue(t, db); got != workers*each {
		t.Errorf("counter = %d, want %d", got, workers*each)
	}
	if c.retries.Load() == 0 {
		t.Error("no retry observed: the test did not exercise conflicts")
	}
	var attempts int64
	for _, e := range c.done {
		attempts += int64(e.Attempt)
	}
	if attempts != c.attempts.Load() || attempts != workers*each+c.conflicts.Load() {
		t.Errorf("attempts %d (hooks saw %d) != %d commits + %d conflicts", attempts, c.attempts.Load(), workers*each, c.conflicts.Load())
	}
	t.Logf("%d increments, %d conflicts retried", workers*each, c.retries.Load())
}

func TestCASContendersExactlyOneWins(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE shards (shard_id int PRIMARY KEY, range_id bigint NOT NULL)")
	mustExec(t, db, "INSERT INTO shards VALUES (1, 10)")
	const observed = 10
	const contenders = 8
	var c tally
	// READ COMMITTED makes a blocked contender re-read the row and match
	// nothing, so the loss shows as a condition failure on its first
	// attempt. (At REPEATABLE READ, as on DSQL, it would first be a 40001,
	// retried, then a condition failure on the fresh snapshot.)
	readCommitted := occ.WithTxOptions(&sql.TxOptions{Isolation: sql.LevelReadCommitted})
	start := make(chan struct{})
	errs := make([]error, contenders)
	var wg sync.WaitGroup
	for i := range contenders {
		wg.Go(func() {
			<-start
			errs[i] = occ.RunTxWithRetryVoid(ctx, db, func(tx *sql.Tx) error {
				return occ.ExecCAS(ctx, tx, "UPDATE shards SET range_id = $1 WHERE shard_id = 1 AND range_id = $2", observed+1+i, observed)
			}, tiny(5), readCommitted, c.option())
		})
	}
	close(start)
	wg.Wait()

	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner < 0:
			winner = i
		case err == nil:
			t.Errorf("contenders %d and %d both won", winner, i)
		case !occ.IsConditionFailedError(err):
			t.Errorf("contender %d: %v, want a ConditionFailedError", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("nobody won")
	}
	var rangeID int
	if err := db.QueryRow("SELECT range_id FROM shards WHERE shard_id = 1").Scan(&rangeID); err != nil {
		t.Fatal(err)
	}
	if rangeID != observed+1+winner {
		t.Errorf("range_id = %d, want the winner's %d", rangeID, observed+1+winner)
	}
	for _, e := range c.done {
		if e.Attempt != 1 {
			t.Errorf("a contender made %d attempts; a lost CAS must not be retried", e.Attempt)
		}
	}
	if got := c.conditionFailed.Load(); got != contenders-1 {
		t.Errorf("%d condition failures observed, want %d", got, contenders-1)
	}
}

func TestUnsupportedFeatureFailsAfterOneAttempt(t *testing.T) {
	db := openDB(t)
	var c tally
	_, err := occ.RunTxWithRetry(context.Background(), db, func(tx *sql.Tx) (int, error) {
		var n int
		err := tx.QueryRow("SELECT count(*) FROM counter FOR UPDATE").Scan(&n)
		return n, err
	}, c.option())
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "0A000" {
		t.Fatalf("err = %v, want PostgreSQL's 0A000 for FOR UPDATE with an aggregate", err)
	}
	var ue *occ.UnsupportedFeatureError
	if !errors.As(err, &ue) || occ.ClassifyError(err) != occ.ErrorTypeUnsupportedFeature {
		t.Errorf("err = %v, want an UnsupportedFeatureError", err)
	}
	if got := c.attempts.Load(); got != 1 {
		t.Errorf("%d attempts, want 1", got)
	}
}

func TestConflictsExhaustAfterMaxRetriesPlusOne(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	var c tally
	_, err := occ.RunTxWithRetry(ctx, db, func(tx *sql.Tx) (string, error) {
		return "from a failed attempt", forceConflict(ctx, db, tx)
	}, tiny(2), c.option())
	var ex *occ.RetriesExhaustedError
	if !errors.As(err, &ex) || ex.Attempts != 3 {
		t.Fatalf("err = %v, want RetriesExhaustedError after 3 attempts", err)
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "40001" {
		t.Errorf("errors.As does not reach the 40001 through %v", err)
	}
	if a, cf, r := c.attempts.Load(), c.conflicts.Load(), c.retries.Load(); a != 3 || cf != 3 || r != 2 {
		t.Errorf("attempts/conflicts/retries = %d/%d/%d, want 3/3/2", a, cf, r)
	}
	// Only the three conflicting writers committed; every attempt rolled back.
	if got := counterValue(t, db); got != 3 {
		t.Errorf("counter = %d, want 3", got)
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	db := openDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inUseWhileWaiting := -1
	hooks := occ.WithHooks(occ.Hooks{OnRetry: func(occ.Event) {
		inUseWhileWaiting = db.Stats().InUse
		cancel()
	}})
	hour := occ.WithConfig(occ.RetryConfig{MaxRetries: 5, BaseDelay: time.Hour, MaxDelay: time.Hour})
	result := make(chan error, 1)
	go func() {
		result <- occ.RunTxWithRetryVoid(ctx, db, func(tx *sql.Tx) error { return forceConflict(ctx, db, tx) }, hour, hooks)
	}()
	var err error
	select {
	case err = <-result:
	case <-time.After(30 * time.Second):
		t.Fatal("still waiting out a one-hour backoff after the context was cancelled")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want it to wrap context.Canceled", err)
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "40001" {
		t.Errorf("err = %v, want it to wrap the 40001", err)
	}
	if inUseWhileWaiting != 0 {
		t.Errorf("%d connections in use during the backoff; the attempt must be rolled back before sleeping", inUseWhileWaiting)
	}
}

func TestPanicLeavesNothingBehind(t *testing.T) {
	db := openDB(t)
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want boom", r)
			}
		}()
		occ.RunTxWithRetryVoid(context.Background(), db, func(tx *sql.Tx) error {
			if _, err := tx.Exec("INSERT INTO counter VALUES (2, 2)"); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	if n := db.Stats().InUse; n != 0 {
		t.Errorf("%d connections in use after the panic", n)
	}
	var rows int
	if err := db.QueryRow("SELECT count(*) FROM counter WHERE id = 2").Scan(&rows); err != nil || rows != 0 {
		t.Errorf("found %d rows (%v): the panicking transaction committed", rows, err)
	}
}

func TestSwallowedErrorIsNotRetried(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	var c tally
	err := occ.RunTxWithRetryVoid(ctx, db, func(tx *sql.Tx) error {
		if err := forceConflict(ctx, db, tx); err == nil {
			return errors.New("expected a conflict")
		}
		return nil // the bug: the 40001 is dropped
	}, tiny(5), c.option())
	var rb *occ.CommitRolledBackError
	if !errors.As(err, &rb) || !errors.Is(err, pgx.ErrTxCommitRollback) {
		t.Fatalf("err = %v, want a CommitRolledBackError wrapping pgx.ErrTxCommitRollback", err)
	}
	if !strings.Contains(err.Error(), "swallowed") {
		t.Errorf("err = %q, want the swallowed-error hint", err)
	}
	if got := c.attempts.Load(); got != 1 {
		t.Errorf("%d attempts, want 1", got)
	}
}

func TestCommitTimeConflictIsRetried(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE accounts (id int PRIMARY KEY, bal int NOT NULL)")
	mustExec(t, db, "INSERT INTO accounts VALUES (1, 100), (2, 100)")
	serializable := occ.WithTxOptions(&sql.TxOptions{Isolation: sql.LevelSerializable})

	// Write skew: both read the sum, each debits a different account. The
	// first to commit wins; PostgreSQL rejects the second at COMMIT.
	read1, read2, wrote2, done1 := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
	debit := func(id int, myRead, otherRead, myWrite, waitBeforeCommit chan struct{}) func(*sql.Tx) error {
		attempt := 0
		return func(tx *sql.Tx) error {
			attempt++
			var sum int
			if err := tx.QueryRowContext(ctx, "SELECT sum(bal) FROM accounts").Scan(&sum); err != nil {
				return err
			}
			if attempt == 1 {
				close(myRead)
				if err := await(otherRead); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, "UPDATE accounts SET bal = bal - 10 WHERE id = $1", id); err != nil {
				return err
			}
			if attempt == 1 {
				if myWrite != nil {
					close(myWrite)
				}
				return await(waitBeforeCommit)
			}
			return nil
		}
	}
	var first, second tally
	var err1, err2 error
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done1)
		err1 = occ.RunTxWithRetryVoid(ctx, db, debit(1, read1, read2, nil, wrote2), tiny(3), serializable, first.option())
	})
	wg.Go(func() {
		err2 = occ.RunTxWithRetryVoid(ctx, db, debit(2, read2, read1, wrote2, done1), tiny(3), serializable, second.option())
	})
	wg.Wait()
	if err1 != nil || err2 != nil {
		t.Fatalf("first: %v; second: %v", err1, err2)
	}
	if got := first.attempts.Load(); got != 1 {
		t.Errorf("first transaction made %d attempts, want 1", got)
	}
	if got := second.attempts.Load(); got != 2 {
		t.Errorf("second transaction made %d attempts, want 2", got)
	}
	var pe *pgconn.PgError
	if !errors.As(second.lastConflict, &pe) || pe.Code != "40001" || !strings.Contains(pe.Detail, "during commit attempt") {
		t.Errorf("second transaction's conflict = %v, want a 40001 raised at COMMIT", second.lastConflict)
	}
	var b1, b2 int
	if err := db.QueryRow("SELECT (SELECT bal FROM accounts WHERE id = 1), (SELECT bal FROM accounts WHERE id = 2)").Scan(&b1, &b2); err != nil {
		t.Fatal(err)
	}
	if b1 != 90 || b2 != 90 {
		t.Errorf("balances %d, %d; want 90, 90", b1, b2)
	}
}

// await waits for ch, or gives up so that a broken choreography fails the
// test instead of hanging it.
func await(ch chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("gave up waiting for the other transaction")
	}
}
