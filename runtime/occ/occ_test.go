package occ

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dsqllint/dsqllint/runtime/internal/retry"
)

// fast retries without waiting: tests about attempt counts, not backoff.
var fast = WithConfig(RetryConfig{MaxRetries: 5, BaseDelay: time.Nanosecond, MaxDelay: time.Nanosecond})

func TestClassifyErrorOrder(t *testing.T) {
	cf := &ConditionFailedError{Msg: "range_id moved"}
	tests := []struct {
		name string
		err  error
		want ErrorType
	}{
		{"nil", nil, 0},
		{"condition failed", cf, ErrorTypeConditionFailed},
		{"condition failed wrapped", fmt.Errorf("shard 3: %w", cf), ErrorTypeConditionFailed},
		{"condition failed before 40001", errors.Join(errConflict, cf), ErrorTypeConditionFailed},
		{"40001", errConflict, ErrorTypeRetryable},
		{"40001 wrapped with %w", fmt.Errorf("update: %w", errConflict), ErrorTypeRetryable},
		{"40001 formatted with %v is lost", fmt.Errorf("update: %v", errConflict), ErrorTypePermanent},
		{"40001 before 0A000", errors.Join(errUnsupported, errConflict), ErrorTypeRetryable},
		{"40001 joined with a context error", fmt.Errorf("%w; %w", context.Canceled, errConflict), ErrorTypeRetryable},
		{"retries exhausted", &RetriesExhaustedError{Attempts: 6, Err: errConflict}, ErrorTypeRetryable},
		{"0A000", errUnsupported, ErrorTypeUnsupportedFeature},
		{"0A000 with hint", &UnsupportedFeatureError{Err: errUnsupported}, ErrorTypeUnsupportedFeature},
		{"54000", errTooBig, ErrorTypePermanent},
		{"23505", errUnique, ErrorTypePermanent},
		{"no SQLSTATE", errors.New("connection reset by peer"), ErrorTypePermanent},
		{"deadline", context.DeadlineExceeded, ErrorTypePermanent},
	}
	for _, tt := range tests {
		if got := ClassifyError(tt.err); got != tt.want {
			t.Errorf("%s: ClassifyError(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

func TestErrorTypeMirrorsLoopClass(t *testing.T) {
	pairs := map[ErrorType]retry.Class{
		ErrorTypeRetryable:          retry.Retryable,
		ErrorTypeConditionFailed:    retry.ConditionFailed,
		ErrorTypeUnsupportedFeature: retry.Unsupported,
		ErrorTypePermanent:          retry.Permanent,
	}
	for et, c := range pairs {
		if int(et) != int(c) {
			t.Errorf("%v = %d, but the loop's class is %d", et, et, c)
		}
	}
	labels := []string{ErrorTypeRetryable.String(), ErrorTypeConditionFailed.String(),
		ErrorTypeUnsupportedFeature.String(), ErrorTypePermanent.String()}
	if got := strings.Join(labels, ","); got != "retryable,condition_failed,unsupported_feature,permanent" {
		t.Errorf("labels = %s", got)
	}
}

func TestIsConditionFailedErrorThroughWrapping(t *testing.T) {
	cf := &ConditionFailedError{Msg: "x"}
	for _, err := range []error{cf, fmt.Errorf("a: %w", cf), fmt.Errorf("b: %w", fmt.Errorf("a: %w", cf)), errors.Join(errConflict, cf)} {
		if !IsConditionFailedError(err) {
			t.Errorf("IsConditionFailedError(%v) = false", err)
		}
	}
	for _, err := range []error{nil, errConflict, errors.New("condition failed: x"), fmt.Errorf("a: %v", cf)} {
		if IsConditionFailedError(err) {
			t.Errorf("IsConditionFailedError(%v) = true", err)
		}
	}
}

func TestRetriesConflictsAndReturnsTheCommittedResult(t *testing.T) {
	f := &fakeDB{}
	calls := 0
	got, err := RunTxWithRetry(context.Background(), f.open(), failing(&calls, errConflict, fmt.Errorf("read: %w", errConflict)), fast)
	if err != nil {
		t.Fatal(err)
	}
	if got != 3 || calls != 3 {
		t.Errorf("result %d after %d calls, want 3 after 3", got, calls)
	}
	if b, c, r := f.counts(); b != 3 || c != 1 || r != 2 {
		t.Errorf("begins/commits/rollbacks = %d/%d/%d, want 3/1/2 (a fresh transaction per attempt)", b, c, r)
	}
}

func TestMaxRetriesBoundsAttempts(t *testing.T) {
	for _, maxRetries := range []int{0, 1, 3} {
		f := &fakeDB{}
		calls := 0
		always := func(*sql.Tx) (int, error) { calls++; return 7, errConflict }
		cfg := RetryConfig{MaxRetries: maxRetries, BaseDelay: time.Nanosecond, MaxDelay: time.Nanosecond}
		got, err := RunTxWithRetry(context.Background(), f.open(), always, WithConfig(cfg))
		if calls != maxRetries+1 {
			t.Errorf("MaxRetries %d: %d attempts, want %d", maxRetries, calls, maxRetries+1)
		}
		if got != 0 {
			t.Errorf("MaxRetries %d: result %d from a failed attempt leaked", maxRetries, got)
		}
		var ex *RetriesExhaustedError
		if !errors.As(err, &ex) || ex.Attempts != maxRetries+1 {
			t.Errorf("MaxRetries %d: err = %v, want RetriesExhaustedError after %d attempts", maxRetries, err, maxRetries+1)
		}
		var pe *pgError
		if !errors.As(err, &pe) || pe.code != "40001" {
			t.Errorf("MaxRetries %d: errors.As does not reach the 40001 through %v", maxRetries, err)
		}
	}
}

func TestCommitConflictIsRetried(t *testing.T) {
	f := &fakeDB{commitErrs: []error{errConflict}}
	calls := 0
	got, err := RunTxWithRetry(context.Background(), f.open(), failing(&calls), fast)
	if err != nil || got != 2 {
		t.Fatalf("got %d, %v; want 2, nil", got, err)
	}
	if b, c, _ := f.counts(); b != 2 || c != 1 {
		t.Errorf("begins/commits = %d/%d, want 2/1", b, c)
	}
}

func TestOnlyConflictsAreRetried(t *testing.T) {
	cf := &ConditionFailedError{Msg: "range_id moved"}
	plain := errors.New("no such table")
	tests := []struct {
		name      string
		fnErr     error
		commitErr error
		check     func(error) bool
		hint      string
	}{
		{"condition failed", fmt.Errorf("lock shard: %w", cf), nil, IsConditionFailedError, ""},
		{"permanent error returned unchanged", plain, nil, func(err error) bool { return err == plain }, ""},
		{"0A000", errUnsupported, nil, isA[*UnsupportedFeatureError], "SAVEPOINT"},
		{"54000", errTooBig, nil, isA[*LimitExceededError], "3,000 modified rows"},
		{"commit without SQLSTATE", nil, errors.New("read: connection reset by peer"), isA[*AmbiguousCommitError], "may have committed"},
		{"pgx commit rollback", nil, errors.New("commit unexpectedly resulted in rollback"), isA[*CommitRolledBackError], "swallowed"},
		{"lib/pq commit rollback", nil, errors.New("pq: Could not complete operation in a failed transaction"), isA[*CommitRolledBackError], "swallowed"},
		{"commit with a SQLSTATE is not ambiguous", nil, errUnique, func(err error) bool { return err == errUnique }, ""},
		{"54000 at commit", nil, errTooBig, isA[*LimitExceededError], "smaller transactions"},
	}
	for _, tt := range tests {
		f := &fakeDB{commitErrs: []error{tt.commitErr}}
		calls := 0
		_, err := RunTxWithRetry(context.Background(), f.open(), failing(&calls, tt.fnErr), fast)
		if calls != 1 {
			t.Errorf("%s: %d attempts, want 1", tt.name, calls)
		}
		if err == nil || !tt.check(err) {
			t.Errorf("%s: wrong error %#v", tt.name, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.hint) {
			t.Errorf("%s: error %q lacks hint %q", tt.name, err, tt.hint)
		}
		if tt.fnErr != nil && !errors.Is(err, tt.fnErr) {
			t.Errorf("%s: %v does not wrap fn's error", tt.name, err)
		}
	}
}

func isA[E error](err error) bool {
	var e E
	return errors.As(err, &e)
}

func TestInvalidConfigRejectedBeforeAnyAttempt(t *testing.T) {
	d := DefaultRetryConfig()
	with := func(edit func(*RetryConfig)) RetryConfig { c := d; edit(&c); return c }
	tests := []struct {
		cfg  RetryConfig
		want string
	}{
		{with(func(c *RetryConfig) { c.MaxRetries = -1 }), "MaxRetries is -1"},
		{with(func(c *RetryConfig) { c.BaseDelay = -time.Second }), "BaseDelay is negative"},
		{RetryConfig{MaxRetries: 3}, "BaseDelay is 0 with MaxRetries 3"},
		{with(func(c *RetryConfig) { c.MaxDelay = time.Millisecond }), "MaxDelay (1ms) is less than BaseDelay (100ms)"},
		{with(func(c *RetryConfig) { c.JitterFactor = 1.5 }), "JitterFactor is 1.5"},
		{with(func(c *RetryConfig) { c.JitterFactor = -0.1 }), "JitterFactor is -0.1"},
		{with(func(c *RetryConfig) { c.JitterFactor = math.NaN() }), "JitterFactor is NaN"},
	}
	for _, tt := range tests {
		f := &fakeDB{}
		_, err := RunTxWithRetry(context.Background(), f.open(), func(*sql.Tx) (int, error) { return 1, nil }, WithConfig(tt.cfg))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err = %v, want one mentioning %q", tt.cfg, err, tt.want)
		}
		if b, _, _ := f.counts(); b != 0 {
			t.Errorf("%+v: %d transactions begun before rejecting the config", tt.cfg, b)
		}
	}
	// Zero retries needs no backoff, so a zero config is one plain attempt.
	f := &fakeDB{}
	if _, err := RunTxWithRetry(context.Background(), f.open(), func(*sql.Tx) (int, error) { return 1, nil }, WithConfig(RetryConfig{})); err != nil {
		t.Errorf("RetryConfig{}: %v", err)
	}
}

func TestDefaultRetryConfig(t *testing.T) {
	want := RetryConfig{MaxRetries: 5, BaseDelay: 100 * time.Millisecond, MaxDelay: 5 * time.Second, JitterFactor: 0.25}
	if got := DefaultRetryConfig(); got != want {
		t.Errorf("DefaultRetryConfig() = %+v, want %+v", got, want)
	}
}

func TestBackoffDoublesFromBaseAndIsCappedAtMax(t *testing.T) {
	clock := &fakeTime{}
	cfg := RetryConfig{MaxRetries: 6, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	calls := 0
	always := func(*sql.Tx) (int, error) { calls++; return 0, errConflict }
	_, err := RunTxWithRetry(context.Background(), (&fakeDB{}).open(), always, WithConfig(cfg), clock.option())
	if !isA[*RetriesExhaustedError](err) {
		t.Fatal(err)
	}
	ms := time.Millisecond
	want := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1000 * ms, 1000 * ms}
	if fmt.Sprint(clock.sleeps) != fmt.Sprint(want) {
		t.Errorf("sleeps = %v, want %v (none after the last attempt)", clock.sleeps, want)
	}
}

func TestBackoffJitterOnlyShortens(t *testing.T) {
	for _, j := range []float64{0.25, 0.5, 1} {
		for _, u := range []float64{0, 0.5, 0.999999} {
			clock := &fakeTime{}
			cfg := RetryConfig{MaxRetries: 8, BaseDelay: 100 * time.Millisecond, MaxDelay: 2 * time.Second, JitterFactor: j}
			always := func(*sql.Tx) (int, error) { return 0, errConflict }
			RunTxWithRetry(context.Background(), (&fakeDB{}).open(), always, WithConfig(cfg), clock.option(), withRand(u))
			for i, got := range clock.sleeps {
				ceiling := min(cfg.BaseDelay<<i, cfg.MaxDelay)
				want := ceiling - time.Duration(j*u*float64(ceiling))
				if got != want || got > ceiling || got < time.Duration((1-j)*float64(ceiling)) {
					t.Errorf("J=%v U=%v retry %d: slept %v, want %v within [(1-J)d, d], d=%v", j, u, i+1, got, want, ceiling)
				}
			}
		}
	}
}

func TestBackoffSurvivesHugeRetryCounts(t *testing.T) {
	c := retry.Config{MaxRetries: 1 << 20, BaseDelay: time.Hour, MaxDelay: 2 * time.Hour}
	for _, n := range []int{1, 2, 3, 62, 63, 64, 1000, math.MaxInt} {
		if got := c.Backoff(n, 0); got <= 0 || got > c.MaxDelay {
			t.Errorf("Backoff(%d) = %v, want within (0, %v]", n, got, c.MaxDelay)
		}
	}
}

func TestContextEndedBeforeFirstAttempt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := &fakeDB{}
	_, err := RunTxWithRetry(ctx, f.open(), func(*sql.Tx) (int, error) { return 1, nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if b, _, _ := f.counts(); b != 0 {
		t.Errorf("%d transactions begun with a cancelled context", b)
	}
}

func TestCancelDuringBackoffReportsContextAndConflict(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The real timer path, with a wait no test would sit through.
	cfg := RetryConfig{MaxRetries: 3, BaseDelay: time.Hour, MaxDelay: time.Hour}
	onRetry := WithHooks(Hooks{OnRetry: func(Event) { cancel() }})
	calls := 0
	result := make(chan error, 1)
	go func() {
		_, err := RunTxWithRetry(ctx, (&fakeDB{}).open(), failing(&calls, errConflict), WithConfig(cfg), onRetry)
		result <- err
	}()
	var err error
	select {
	case err = <-result:
	case <-time.After(30 * time.Second):
		t.Fatal("RunTxWithRetry still sleeping after its context was cancelled")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want it to wrap context.Canceled", err)
	}
	var pe *pgError
	if !errors.As(err, &pe) || pe.code != "40001" {
		t.Errorf("err = %v, want it to wrap the 40001", err)
	}
	if calls != 1 {
		t.Errorf("%d attempts, want 1", calls)
	}
}

func TestPanicRollsBackAndPanicsOn(t *testing.T) {
	f := &fakeDB{}
	db := f.open()
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want the original panic value", r)
			}
		}()
		RunTxWithRetry(context.Background(), db, func(*sql.Tx) (int, error) { panic("boom") })
		t.Error("RunTxWithRetry returned instead of panicking")
	}()
	if b, c, r := f.counts(); b != 1 || c != 0 || r != 1 {
		t.Errorf("begins/commits/rollbacks = %d/%d/%d, want 1/0/1", b, c, r)
	}
	if n := db.Stats().InUse; n != 0 {
		t.Errorf("%d connections still in use after the panic", n)
	}
}

func TestHooksSeeEachStep(t *testing.T) {
	clock := &fakeTime{tick: 10 * time.Millisecond}
	var got []string
	record := func(name string) func(Event) {
		return func(e Event) {
			got = append(got, fmt.Sprintf("%s op=%s attempt=%d dur=%v delay=%v state=%s occ=%s type=%v err=%t",
				name, e.Operation, e.Attempt, e.Duration, e.Delay, e.SQLState, e.OCCCode, e.ErrorType, e.Err != nil))
		}
	}
	hooks := WithHooks(Hooks{
		OnAttempt:         record("attempt"),
		OnConflict:        record("conflict"),
		OnRetry:           record("retry"),
		OnConditionFailed: record("condition-failed"),
		OnDone:            record("done"),
	})
	cfg := RetryConfig{MaxRetries: 1, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	ctx := context.Background()

	calls := 0
	if _, err := RunTxWithRetry(ctx, (&fakeDB{}).open(), failing(&calls, errConflict), WithConfig(cfg), WithOperation("ReadLockShards"), hooks, clock.option()); err != nil {
		t.Fatal(err)
	}
	calls = 0
	cf := &ConditionFailedError{Msg: "range_id moved"}
	RunTxWithRetry(ctx, (&fakeDB{}).open(), failing(&calls, cf), WithConfig(cfg), WithOperation("UpdateShards"), hooks, clock.option())
	calls = 0
	RunTxWithRetry(ctx, (&fakeDB{}).open(), failing(&calls, errConflict, errConflict), WithConfig(cfg), WithOperation("Exhaust"), hooks, clock.option())

	// Every clock reading advances 10ms and a sleep advances it by the delay,
	// so an attempt takes 10ms and the first call 5 readings and a sleep.
	want := []string{
		"attempt op=ReadLockShards attempt=1 dur=10ms delay=0s state=40001 occ=OC000 type=retryable err=true",
		"conflict op=ReadLockShards attempt=1 dur=0s delay=0s state=40001 occ=OC000 type=retryable err=true",
		"retry op=ReadLockShards attempt=1 dur=0s delay=100ms state=40001 occ=OC000 type=retryable err=true",
		"attempt op=ReadLockShards attempt=2 dur=10ms delay=0s state= occ= type=none err=false",
		"done op=ReadLockShards attempt=2 dur=150ms delay=0s state= occ= type=none err=false",

		"attempt op=UpdateShards attempt=1 dur=10ms delay=0s state= occ= type=condition_failed err=true",
		"condition-failed op=UpdateShards attempt=1 dur=0s delay=0s state= occ= type=condition_failed err=true",
		"done op=UpdateShards attempt=1 dur=30ms delay=0s state= occ= type=condition_failed err=true",

		"attempt op=Exhaust attempt=1 dur=10ms delay=0s state=40001 occ=OC000 type=retryable err=true",
		"conflict op=Exhaust attempt=1 dur=0s delay=0s state=40001 occ=OC000 type=retryable err=true",
		"retry op=Exhaust attempt=1 dur=0s delay=100ms state=40001 occ=OC000 type=retryable err=true",
		"attempt op=Exhaust attempt=2 dur=10ms delay=0s state=40001 occ=OC000 type=retryable err=true",
		"conflict op=Exhaust attempt=2 dur=0s delay=0s state=40001 occ=OC000 type=retryable err=true",
		"done op=Exhaust attempt=2 dur=150ms delay=0s state=40001 occ=OC000 type=retryable err=true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWithHooksAddsUp(t *testing.T) {
	var a, b int
	ha := WithHooks(Hooks{OnDone: func(Event) { a++ }})
	hb := WithHooks(Hooks{OnDone: func(Event) { b++ }})
	hc := WithHooks(Hooks{OnDone: func(Event) { b++ }})
	if err := RunTxWithRetryVoid(context.Background(), (&fakeDB{}).open(), func(*sql.Tx) error { return nil }, ha, hb, hc); err != nil {
		t.Fatal(err)
	}
	if a != 1 || b != 2 {
		t.Errorf("OnDone calls: %d and %d, want 1 and 2", a, b)
	}
}

func TestNoHooksNoClock(t *testing.T) {
	noClock := Option(func(s *retry.Settings) { s.Now = func() time.Time { panic("clock read without hooks") } })
	calls := 0
	if _, err := RunTxWithRetry(context.Background(), (&fakeDB{}).open(), failing(&calls, errConflict), fast, noClock); err != nil {
		t.Fatal(err)
	}
}

func TestTxOptions(t *testing.T) {
	f := &fakeDB{}
	err := RunTxWithRetryVoid(context.Background(), f.open(), func(*sql.Tx) error { return nil }, WithTxOptions(&sql.TxOptions{ReadOnly: true}))
	if err != nil || !f.lastOpts.ReadOnly {
		t.Errorf("err %v, read-only %v; want the transaction begun read-only", err, f.lastOpts.ReadOnly)
	}

	f = &fakeDB{}
	foreign := Option(func(s *retry.Settings) { s.TxOptions = struct{ IsoLevel string }{} })
	err = RunTxWithRetryVoid(context.Background(), f.open(), func(*sql.Tx) error { return nil }, foreign)
	if err == nil || !strings.Contains(err.Error(), "use occ.WithTxOptions") {
		t.Errorf("err = %v, want a complaint about the options' type", err)
	}
	if b, _, _ := f.counts(); b != 0 {
		t.Error("began a transaction despite the wrong options")
	}
}

func TestRunTxWithRetryVoid(t *testing.T) {
	f := &fakeDB{}
	calls := 0
	err := RunTxWithRetryVoid(context.Background(), f.open(), func(*sql.Tx) error {
		calls++
		if calls == 1 {
			return errConflict
		}
		return nil
	}, fast)
	if err != nil || calls != 2 {
		t.Errorf("err %v after %d calls, want nil after 2", err, calls)
	}
}

func TestExecCASNeedsExactlyOneRow(t *testing.T) {
	const q = `UPDATE shards
		SET range_id = $1 WHERE shard_id = $2 AND range_id = $3`
	for _, n := range []int64{0, 1, 2} {
		f := &fakeDB{rowsAffected: n}
		err := RunTxWithRetryVoid(context.Background(), f.open(), func(tx *sql.Tx) error {
			return ExecCAS(context.Background(), tx, q, 2, 7, 1)
		}, fast)
		if n == 1 {
			if err != nil {
				t.Errorf("1 row: %v", err)
			}
			continue
		}
		want := fmt.Sprintf("condition failed: %d rows affected, want exactly 1: UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3", n)
		if !IsConditionFailedError(err) || err.Error() != want {
			t.Errorf("%d rows: err = %v, want %q", n, err, want)
		}
		if b, c, _ := f.counts(); b != 1 || c != 0 {
			t.Errorf("%d rows: begins/commits = %d/%d, want 1/0 (rolled back, not retried)", n, b, c)
		}
	}
}
