package occ

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dsqllint/dsqllint/runtime/internal/retry"
)

const bump = "UPDATE counters SET n = n + 1 WHERE id = $1"

func TestExecWithRetryRunsEachAttemptInItsOwnTransaction(t *testing.T) {
	// Attempt 1 conflicts at the statement, attempt 2 at COMMIT, attempt 3
	// commits.
	f := &fakeDB{execErrs: []error{errConflict}, commitErrs: []error{errConflict}, rowsAffected: 1}
	var events []string
	hooks := WithHooks(Hooks{
		OnRetry: func(e Event) { events = append(events, fmt.Sprintf("retry %s %d", e.Operation, e.Attempt)) },
		OnDone:  func(e Event) { events = append(events, fmt.Sprintf("done %s %d %v", e.Operation, e.Attempt, e.Err)) },
	})
	res, err := ExecWithRetryOpts(context.Background(), f.open(), []Option{fast, WithOperation("Bump"), hooks}, bump, 7)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := res.RowsAffected(); n != 1 || err != nil {
		t.Errorf("RowsAffected = %d, %v; want the committed attempt's 1", n, err)
	}
	want := []string{bump + " in tx 7", bump + " in tx 7", bump + " in tx 7"}
	if strings.Join(f.execs, "\n") != strings.Join(want, "\n") {
		t.Errorf("statements run:\n%s\nwant:\n%s", strings.Join(f.execs, "\n"), strings.Join(want, "\n"))
	}
	// The attempt that conflicted at the statement was rolled back; the one
	// that conflicted at COMMIT had already ended.
	if b, c, r := f.counts(); b != 3 || c != 1 || r != 1 {
		t.Errorf("begins/commits/rollbacks = %d/%d/%d, want 3/1/1", b, c, r)
	}
	if got, want := strings.Join(events, "; "), "retry Bump 1; retry Bump 2; done Bump 3 <nil>"; got != want {
		t.Errorf("hooks saw %q, want %q", got, want)
	}
}

func TestExecWithRetryUsesTheDefaults(t *testing.T) {
	f := &fakeDB{rowsAffected: 2}
	res, err := ExecWithRetry(context.Background(), f.open(), bump, 7)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Errorf("RowsAffected = %d, want 2", n)
	}
	if b, c, _ := f.counts(); b != 1 || c != 1 || len(f.execs) != 1 {
		t.Errorf("begins/commits/statements = %d/%d/%d, want 1/1/1", b, c, len(f.execs))
	}
}

func TestExecWithRetryErrors(t *testing.T) {
	always := []error{errConflict, errConflict, errConflict, errConflict}
	tests := []struct {
		name       string
		execErrs   []error
		commitErr  error
		check      func(error) bool
		attempts   int
		statements int
	}{
		{"unique violation returned unchanged", []error{errUnique}, nil, func(err error) bool { return err == errUnique }, 1, 1},
		{"0A000", []error{errUnsupported}, nil, isA[*UnsupportedFeatureError], 1, 1},
		{"54000", []error{errTooBig}, nil, isA[*LimitExceededError], 1, 1},
		{"commit without an answer", nil, errors.New("read: connection reset by peer"), isA[*AmbiguousCommitError], 1, 1},
		{"statement without an answer is not ambiguous", []error{errors.New("write: broken pipe")}, nil,
			func(err error) bool { return err.Error() == "write: broken pipe" && !isA[*AmbiguousCommitError](err) }, 1, 1},
		{"conflicts exhaust", always, nil, func(err error) bool {
			var ex *RetriesExhaustedError
			return errors.As(err, &ex) && ex.Attempts == 3 && errors.Is(err, errConflict)
		}, 3, 3},
	}
	twoRetries := WithConfig(RetryConfig{MaxRetries: 2, BaseDelay: time.Nanosecond, MaxDelay: time.Nanosecond})
	for _, tt := range tests {
		f := &fakeDB{execErrs: tt.execErrs, commitErrs: []error{tt.commitErr}, rowsAffected: 1}
		attempts := 0
		count := WithHooks(Hooks{OnAttempt: func(Event) { attempts++ }})
		res, err := ExecWithRetryOpts(context.Background(), f.open(), []Option{twoRetries, count}, bump, 7)
		if err == nil || !tt.check(err) {
			t.Errorf("%s: wrong error %#v", tt.name, err)
		}
		if res != nil {
			t.Errorf("%s: a failed call returned a result", tt.name)
		}
		if attempts != tt.attempts || len(f.execs) != tt.statements {
			t.Errorf("%s: %d attempts and %d statements, want %d and %d", tt.name, attempts, len(f.execs), tt.attempts, tt.statements)
		}
	}
}

func TestExecWithRetryOptsRejectsBadOptionsBeforeBeginning(t *testing.T) {
	foreign := Option(func(s *retry.Settings) { s.TxOptions = struct{ IsoLevel string }{} })
	tests := []struct {
		opt  Option
		want string
	}{
		{foreign, "occ: ExecWithRetryOpts got transaction options of type struct { IsoLevel string }; use occ.WithTxOptions"},
		{WithConfig(RetryConfig{MaxRetries: -1}), "MaxRetries is -1"},
	}
	for _, tt := range tests {
		f := &fakeDB{}
		res, err := ExecWithRetryOpts(context.Background(), f.open(), []Option{tt.opt}, bump, 7)
		if err == nil || !strings.Contains(err.Error(), tt.want) || res != nil {
			t.Errorf("err = %v, want one containing %q", err, tt.want)
		}
		if b, _, _ := f.counts(); b != 0 || len(f.execs) != 0 {
			t.Errorf("%q: began %d transactions and ran %d statements", tt.want, b, len(f.execs))
		}
	}
}

func TestExecWithRetryTakesTxOptions(t *testing.T) {
	f := &fakeDB{}
	if _, err := ExecWithRetryOpts(context.Background(), f.open(), []Option{WithTxOptions(&sql.TxOptions{ReadOnly: true})}, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if !f.lastOpts.ReadOnly {
		t.Error("the statement's transaction was not begun read-only")
	}
}
