package occ

import (
	"time"

	"github.com/dsqllint/dsqllint/runtime/internal/retry"
)

// RetryConfig bounds the retries and shapes the wait between them.
//
// The wait before retry n is BaseDelay doubled n-1 times, capped at MaxDelay,
// then shortened at random by up to JitterFactor of itself:
// d*(1 - JitterFactor*U) with U uniform in [0,1). MaxDelay is therefore a hard
// cap. JitterFactor 1 is "full jitter", which spreads contending clients best.
//
// Invalid values are reported by RunTxWithRetry before any attempt, never
// adjusted: MaxRetries < 0, BaseDelay < 0, BaseDelay == 0 with MaxRetries > 0,
// MaxDelay < BaseDelay, JitterFactor outside [0, 1].
type RetryConfig struct {
	// MaxRetries is how many times a conflicting transaction is run again:
	// at most MaxRetries+1 attempts; 0 means a single attempt.
	MaxRetries   int
	BaseDelay    time.Duration
	MaxDelay     time.Duration
	JitterFactor float64
}

// DefaultRetryConfig returns 5 retries, a 100ms base delay, a 5s cap and 0.25
// jitter: the defaults used when no WithConfig option is given.
func DefaultRetryConfig() RetryConfig { return RetryConfig(retry.DefaultConfig) }

// Option configures one call of RunTxWithRetry, here or in package occpgx.
// Options are made by WithConfig, WithOperation, WithHooks and WithTxOptions
// (occpgx.WithTxOptions for pgx); later options override earlier ones, except
// that hooks add up.
type Option func(*retry.Settings)

// WithConfig sets the retry budget and backoff.
func WithConfig(c RetryConfig) Option {
	return func(s *retry.Settings) { s.Config = retry.Config(c) }
}

// WithOperation names the operation, for example "ReadLockShards". The name
// is passed to hooks as Event.Operation and becomes the metrics' operation
// label, so it must come from a small fixed set, never from data.
func WithOperation(name string) Option {
	return func(s *retry.Settings) { s.Operation = name }
}

// WithHooks adds observability callbacks. It may be given more than once;
// every set of hooks is called. Build the option once and reuse it: it
// allocates when created, not when used.
func WithHooks(h Hooks) Option {
	o := hooksObserver(h)
	return func(s *retry.Settings) { s.AddObserver(o) }
}

// Hooks are optional callbacks, called synchronously on the goroutine running
// the transaction; a nil field is skipped. Without hooks the retry loop does
// not read the clock.
type Hooks struct {
	// OnAttempt follows every attempt: Attempt, Duration of the attempt
	// (BEGIN to COMMIT or rollback), and Err, nil if it committed.
	OnAttempt func(Event)
	// OnConflict follows every attempt that failed with 40001, including
	// the last one when no retries remain.
	OnConflict func(Event)
	// OnRetry precedes each backoff: Attempt is the attempt that failed and
	// Delay the wait before attempt Attempt+1.
	OnRetry func(Event)
	// OnConditionFailed follows an attempt whose fn returned a
	// ConditionFailedError, which is never retried.
	OnConditionFailed func(Event)
	// OnDone is called once, as the call returns: Attempt is the number of
	// attempts made, Duration the whole call including backoff, and Err the
	// error returned, nil if it committed. It is not called if fn panics.
	OnDone func(Event)
}

// Event describes one step of a call. Whenever Err is set, SQLState,
// OCCCode and ErrorType describe it.
type Event struct {
	Operation string        // from WithOperation, "" if not given
	Attempt   int           // 1-based attempt number; for OnDone, attempts made
	Duration  time.Duration // of the attempt (OnAttempt) or the call (OnDone)
	Delay     time.Duration // backoff before the next attempt (OnRetry)
	SQLState  string        // first SQLSTATE in Err, "" if none
	OCCCode   string        // "OC000" or "OC001" from a DSQL 40001 message, else ""
	ErrorType ErrorType     // ClassifyError(Err); 0 when Err is nil
	Err       error
}

type hooksObserver Hooks

func (h hooksObserver) Observe(k retry.Kind, e retry.Event) {
	var f func(Event)
	switch k {
	case retry.KindAttempt:
		f = h.OnAttempt
	case retry.KindConflict:
		f = h.OnConflict
	case retry.KindRetry:
		f = h.OnRetry
	case retry.KindConditionFailed:
		f = h.OnConditionFailed
	case retry.KindDone:
		f = h.OnDone
	}
	if f != nil {
		f(Event{
			Operation: e.Operation,
			Attempt:   e.Attempt,
			Duration:  e.Duration,
			Delay:     e.Delay,
			SQLState:  e.SQLState,
			OCCCode:   e.OCCCode,
			ErrorType: ErrorType(e.Class),
			Err:       e.Err,
		})
	}
}
