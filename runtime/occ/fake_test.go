package occ

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dsqllint/dsqllint/runtime/internal/retry"
)

// pgError is a driver error with a SQLSTATE, shaped like *pgconn.PgError
// and *pq.Error as far as this package can see.
type pgError struct{ code, msg string }

func (e *pgError) Error() string    { return "ERROR: " + e.msg + " (SQLSTATE " + e.code + ")" }
func (e *pgError) SQLState() string { return e.code }

var (
	errConflict    = &pgError{"40001", "mutation conflicts with another transaction, retry as needed (OC000)"}
	errUnsupported = &pgError{"0A000", "unsupported transaction statement: SAVEPOINT"}
	errTooBig      = &pgError{"54000", "transaction row limit exceeded"}
	errUnique      = &pgError{"23505", "duplicate key value violates unique constraint"}
)

// fakeDB is a database/sql driver whose transactions do nothing but count,
// and whose COMMITs fail as scripted.
type fakeDB struct {
	mu           sync.Mutex
	begins       int
	commits      int
	rollbacks    int
	commitErrs   []error // one per COMMIT, in order; nil or missing commits
	execErrs     []error // one per Exec, in order; nil or missing succeeds
	rowsAffected int64   // for Exec
	lastOpts     driver.TxOptions
	execs        []string // each Exec's query, " in tx" if inside a transaction, and arguments
	inTx         bool     // between BeginTx and Commit or Rollback; the tests are sequential
}

func (f *fakeDB) open() *sql.DB { return sql.OpenDB(fakeConnector{f}) }

func (f *fakeDB) counts() (begins, commits, rollbacks int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.begins, f.commits, f.rollbacks
}

type fakeConnector struct{ db *fakeDB }

func (c fakeConnector) Connect(context.Context) (driver.Conn, error) { return fakeConn{c.db}, nil }
func (c fakeConnector) Driver() driver.Driver                        { return nil }

type fakeConn struct{ db *fakeDB }

func (fakeConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("fake: no statements") }
func (fakeConn) Close() error                        { return nil }
func (c fakeConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c fakeConn) BeginTx(_ context.Context, opts driver.TxOptions) (driver.Tx, error) {
	c.db.mu.Lock()
	defer c.db.mu.Unlock()
	c.db.begins++
	c.db.lastOpts = opts
	c.db.inTx = true
	return fakeTx{c.db}, nil
}

func (c fakeConn) ExecContext(_ context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	c.db.mu.Lock()
	defer c.db.mu.Unlock()
	exec := query
	if c.db.inTx {
		exec += " in tx"
	}
	for _, a := range args {
		exec += fmt.Sprintf(" %v", a.Value)
	}
	c.db.execs = append(c.db.execs, exec)
	var err error
	if len(c.db.execErrs) > 0 {
		err, c.db.execErrs = c.db.execErrs[0], c.db.execErrs[1:]
	}
	if err != nil {
		return nil, err
	}
	return driver.RowsAffected(c.db.rowsAffected), nil
}

type fakeTx struct{ db *fakeDB }

func (t fakeTx) Commit() error {
	t.db.mu.Lock()
	defer t.db.mu.Unlock()
	var err error
	if len(t.db.commitErrs) > 0 {
		err, t.db.commitErrs = t.db.commitErrs[0], t.db.commitErrs[1:]
	}
	if err == nil {
		t.db.commits++
	}
	t.db.inTx = false
	return err
}

func (t fakeTx) Rollback() error {
	t.db.mu.Lock()
	defer t.db.mu.Unlock()
	t.db.rollbacks++
	t.db.inTx = false
	return nil
}

// fakeTime is an injected clock and sleep: every reading advances the clock by
// a tick, and sleeping advances it by the delay and records it.
type fakeTime struct {
	mu     sync.Mutex
	now    time.Time
	tick   time.Duration
	sleeps []time.Duration
}

func (c *fakeTime) option() Option {
	return func(s *retry.Settings) {
		s.Now = c.Now
		s.Sleep = c.Sleep
	}
}

func (c *fakeTime) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.tick)
	return c.now
}

func (c *fakeTime) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return ctx.Err()
}

// withRand injects the jitter's random source.
func withRand(u float64) Option {
	return func(s *retry.Settings) { s.Rand = func() float64 { return u } }
}

// failing returns an fn that fails with errs[i] on attempt i+1 (and nil after
// them), counting its calls. A failed attempt returns a non-zero result, which
// must never reach the caller.
func failing(calls *int, errs ...error) func(*sql.Tx) (int, error) {
	return func(*sql.Tx) (int, error) {
		*calls++
		if *calls <= len(errs) && errs[*calls-1] != nil {
			return -*calls, errs[*calls-1]
		}
		return *calls, nil
	}
}
