package retry

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

type stateErr string

func (e stateErr) Error() string    { return "SQLSTATE " + string(e) }
func (e stateErr) SQLState() string { return string(e) }

func TestOCCCode(t *testing.T) {
	tests := map[string]string{
		"ERROR: mutation conflicts with another transaction, retry as needed (OC000) (SQLSTATE 40001)": "OC000",
		"ERROR: schema has been updated by another transaction, please retry: (OC001)":                 "OC001",
		"change conflicts with another transaction (OC000)":                                            "OC000",
		"could not serialize access due to concurrent update":                                          "",
		"OC0":          "",
		"DOC123 OC12x": "",
		"OC001":        "OC001",
	}
	for msg, want := range tests {
		if got := OCCCode(errors.New(msg)); got != want {
			t.Errorf("OCCCode(%q) = %q, want %q", msg, got, want)
		}
	}
	if got := OCCCode(nil); got != "" {
		t.Errorf("OCCCode(nil) = %q", got)
	}
}

func TestSQLStateWalksTheWholeTree(t *testing.T) {
	err := fmt.Errorf("outer: %w", errors.Join(errors.New("plain"), fmt.Errorf("mid: %w", stateErr("0A000")), stateErr("40001")))
	if got := SQLState(err); got != "0A000" {
		t.Errorf("SQLState = %q, want the first one, 0A000", got)
	}
	for _, code := range []string{"0A000", "40001"} {
		if !HasSQLState(err, code) {
			t.Errorf("HasSQLState(%s) = false", code)
		}
	}
	if HasSQLState(err, "54000") || HasSQLState(nil, "40001") || SQLState(errors.New("x")) != "" {
		t.Error("found a SQLSTATE that is not there")
	}
}

func TestBackoff(t *testing.T) {
	ms := time.Millisecond
	c := Config{MaxRetries: 10, BaseDelay: 100 * ms, MaxDelay: 5 * time.Second, JitterFactor: 0.25}
	tests := []struct {
		n    int
		u    float64
		want time.Duration
	}{
		{1, 0, 100 * ms},
		{2, 0, 200 * ms},
		{6, 0, 3200 * ms},
		{7, 0, 5000 * ms},
		{100, 0, 5000 * ms},
		{1, 0.5, 87500 * time.Microsecond},
		{7, 0.5, 4375 * ms},
	}
	for _, tt := range tests {
		if got := c.Backoff(tt.n, tt.u); got != tt.want {
			t.Errorf("Backoff(%d, %v) = %v, want %v", tt.n, tt.u, got, tt.want)
		}
	}
}

func TestResolveWithoutOptionsSharesDefaults(t *testing.T) {
	if s := Resolve[func(*Settings)](nil); s.Config != DefaultConfig || s.Observer != nil {
		t.Errorf("Resolve(nil) = %+v", s)
	}
	s := Resolve([]func(*Settings){func(s *Settings) { s.MaxRetries = 1 }})
	if s.MaxRetries != 1 || defaults.MaxRetries != DefaultConfig.MaxRetries {
		t.Error("options must edit a copy of the defaults")
	}
}

// nopDriver is a driver whose transactions cost nothing, to time the loop.
type nopDriver struct{}

func (nopDriver) Begin(context.Context) (*int, error) { return nil, nil }
func (nopDriver) Commit(context.Context, *int) error  { return nil }
func (nopDriver) Rollback(context.Context, *int)      {}
func (nopDriver) CommitRolledBack(error) bool         { return false }

// BenchmarkRunLoopOnly is the retry loop's own cost per committed call, with
// no database behind it: what RunTxWithRetry adds to a transaction that does
// not conflict.
func BenchmarkRunLoopOnly(b *testing.B) {
	ctx := context.Background()
	fn := func(*int) (int, error) { return 1, nil }
	s := Resolve[func(*Settings)](nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Run(ctx, nopDriver{}, s, fn); err != nil {
			b.Fatal(err)
		}
	}
}
