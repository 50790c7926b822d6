package retry

import (
	"context"
	"fmt"
	"time"
)

// Config is the retry budget and backoff. occ.RetryConfig has the same fields
// and converts to it.
type Config struct {
	MaxRetries   int
	BaseDelay    time.Duration
	MaxDelay     time.Duration
	JitterFactor float64
}

// DefaultConfig follows AWS's own DSQL connectors (100ms doubling up to 5s,
// 25% jitter) with two more retries than their three.
var DefaultConfig = Config{
	MaxRetries:   5,
	BaseDelay:    100 * time.Millisecond,
	MaxDelay:     5 * time.Second,
	JitterFactor: 0.25,
}

// Validate rejects configurations that would retry unboundedly, spin without
// backing off, or sleep nonsense. It never adjusts a value: a config that
// was probably a mistake (a partly filled struct literal) must be seen.
func (c Config) Validate() error {
	var problem string
	switch {
	case c.MaxRetries < 0:
		problem = fmt.Sprintf("MaxRetries is %d; it counts retries after the first attempt, so 0 means a single attempt", c.MaxRetries)
	case c.BaseDelay < 0:
		problem = fmt.Sprintf("BaseDelay is negative (%v)", c.BaseDelay)
	case c.MaxRetries > 0 && c.BaseDelay == 0:
		problem = fmt.Sprintf("BaseDelay is 0 with MaxRetries %d; retrying a conflict without backing off feeds the contention that caused it", c.MaxRetries)
	case c.MaxDelay < c.BaseDelay:
		problem = fmt.Sprintf("MaxDelay (%v) is less than BaseDelay (%v)", c.MaxDelay, c.BaseDelay)
	case !(c.JitterFactor >= 0 && c.JitterFactor <= 1): // also catches NaN
		problem = fmt.Sprintf("JitterFactor is %v; it must be between 0 (no jitter) and 1 (full jitter)", c.JitterFactor)
	default:
		return nil
	}
	return fmt.Errorf("occ: invalid RetryConfig: %s (start from occ.DefaultRetryConfig() and change the fields you need)", problem)
}

// Backoff is the wait before retry n (n >= 1): BaseDelay doubled n-1 times,
// capped at MaxDelay, then shortened at random by up to JitterFactor of itself,
// d*(1 - J*u) with u in [0,1). Jitter only shortens, so MaxDelay is a hard
// cap; J = 1 is the "full jitter" that does best under OCC contention.
func (c Config) Backoff(n int, u float64) time.Duration {
	d := c.MaxDelay
	// Compare before shifting so a large n cannot overflow.
	if shift := n - 1; shift >= 0 && shift < 63 && c.BaseDelay <= c.MaxDelay>>shift {
		d = c.BaseDelay << shift
	}
	return d - time.Duration(c.JitterFactor*u*float64(d))
}

// Settings is everything one call runs with. Options edit it.
type Settings struct {
	Config
	Operation string
	TxOptions any // *sql.TxOptions for occ, pgx.TxOptions for occpgx
	Observer  Observer

	// Seams for tests. Nil means the real clock, a real timer, and
	// math/rand/v2.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	Rand  func() float64
}

var defaults = Settings{Config: DefaultConfig}

// Resolve applies opts to a copy of the defaults. With no options it returns
// the shared defaults, which callers must only read: the common call then
// allocates nothing.
func Resolve[O ~func(*Settings)](opts []O) *Settings {
	if len(opts) == 0 {
		return &defaults
	}
	s := new(Settings)
	*s = defaults
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	return s
}

// AddObserver adds o to the observers already set; each sees every event.
func (s *Settings) AddObserver(o Observer) {
	if s.Observer == nil {
		s.Observer = o
		return
	}
	s.Observer = observers{s.Observer, o}
}

type observers [2]Observer

func (os observers) Observe(k Kind, e Event) {
	os[0].Observe(k, e)
	os[1].Observe(k, e)
}
