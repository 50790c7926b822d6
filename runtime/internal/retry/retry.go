package retry

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// Driver is what the loop needs from a database library. Implementations are
// small value types, so calls through the type parameter allocate nothing.
type Driver[Tx any] interface {
	Begin(ctx context.Context) (Tx, error)
	Commit(ctx context.Context, tx Tx) error
	// Rollback is best effort: the loop has a better error to report.
	Rollback(ctx context.Context, tx Tx)
	// CommitRolledBack reports whether err is the driver saying COMMIT
	// answered ROLLBACK because a statement in the transaction had failed.
	CommitRolledBack(err error) bool
}

// Run runs fn in a fresh transaction per attempt until it commits, fails with
// anything but SQLSTATE 40001, runs out of retries, or ctx ends.
//
// There is no SAVEPOINT-based restart: Aurora DSQL rejects SAVEPOINT, and on
// PostgreSQL ROLLBACK TO SAVEPOINT keeps the old snapshot, so the retried
// statement would conflict again.
func Run[Tx, T any, D Driver[Tx]](ctx context.Context, d D, s *Settings, fn func(Tx) (T, error)) (T, error) {
	var zero T
	if err := s.Validate(); err != nil {
		return zero, err
	}
	l := loop{s: s, observed: s.Observer != nil}
	if l.observed {
		l.start = l.now()
	}
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return zero, l.done(attempt-1, l.stopped(attempt-1, err))
		}
		var began time.Time
		if l.observed {
			began = l.now()
		}
		res, atCommit, err := once(ctx, d, fn)
		if l.observed {
			l.emit(KindAttempt, Event{Attempt: attempt, Duration: l.now().Sub(began), Err: err})
		}
		if err == nil {
			return res, l.done(attempt, nil)
		}

		switch Classify(err) {
		case Retryable:
			// A 40001, from a statement or from COMMIT, means the
			// transaction rolled back: running it again is safe.
			l.last = err
			if l.observed {
				l.emit(KindConflict, Event{Attempt: attempt, Err: err})
			}
			if attempt > s.MaxRetries {
				return zero, l.done(attempt, Errors.Exhausted(attempt, err))
			}
			delay := l.backoff(attempt)
			if l.observed {
				l.emit(KindRetry, Event{Attempt: attempt, Delay: delay, Err: err})
			}
			if err := l.sleep(ctx, delay); err != nil {
				return zero, l.done(attempt, l.stopped(attempt, err))
			}
		case ConditionFailed:
			// Another writer legitimately won the compare-and-set;
			// retrying would only livelock.
			if l.observed {
				l.emit(KindConditionFailed, Event{Attempt: attempt, Err: err})
			}
			return zero, l.done(attempt, err)
		default:
			return zero, l.done(attempt, explain(d, err, atCommit))
		}
	}
}

// once is one attempt. It rolls back before returning any failure, so no
// transaction stays open while the loop sleeps.
func once[Tx, T any, D Driver[Tx]](ctx context.Context, d D, fn func(Tx) (T, error)) (res T, atCommit bool, err error) {
	tx, err := d.Begin(ctx)
	if err != nil {
		return res, false, err
	}
	finished := false
	defer func() {
		// fn panicked or called runtime.Goexit: release the connection
		// and let the panic carry on with its own stack.
		if !finished {
			d.Rollback(ctx, tx)
		}
	}()
	res, err = fn(tx)
	finished = true
	if err != nil {
		d.Rollback(ctx, tx)
		var zero T // results of a failed attempt are never returned
		return zero, false, err
	}
	if err := d.Commit(ctx, tx); err != nil {
		var zero T
		return zero, true, err
	}
	return res, false, nil
}

// explain wraps a non-retryable error with what the caller needs to know.
func explain[Tx any, D Driver[Tx]](d D, err error, atCommit bool) error {
	switch {
	case atCommit && d.CommitRolledBack(err):
		// The transaction had already failed; fn ignored that error, so
		// the cause (perhaps a 40001) is lost and retrying could hide it.
		return Errors.RolledBackAtCommit(err)
	case atCommit && SQLState(err) == "":
		// No answer from the server: the commit may or may not have
		// happened, so running fn again could apply it twice.
		return Errors.Ambiguous(err)
	case HasSQLState(err, FeatureNotSupported):
		return Errors.Unsupported(err)
	case HasSQLState(err, ProgramLimitExceeded):
		return Errors.LimitExceeded(err)
	}
	return err
}

// loop is the per-call state that outlives an attempt.
type loop struct {
	s        *Settings
	observed bool
	start    time.Time
	last     error // the latest 40001, reported if ctx ends while waiting
	timer    *time.Timer
}

func (l *loop) now() time.Time {
	if l.s.Now != nil {
		return l.s.Now()
	}
	return time.Now()
}

func (l *loop) backoff(attempt int) time.Duration {
	var u float64
	if l.s.JitterFactor > 0 {
		if l.s.Rand != nil {
			u = l.s.Rand()
		} else {
			u = rand.Float64()
		}
	}
	return l.s.Backoff(attempt, u)
}

// sleep waits d or until ctx ends. One timer serves every retry of a call.
func (l *loop) sleep(ctx context.Context, d time.Duration) error {
	if l.s.Sleep != nil {
		return l.s.Sleep(ctx, d)
	}
	if l.timer == nil {
		l.timer = time.NewTimer(d)
	} else {
		l.timer.Reset(d)
	}
	select {
	case <-l.timer.C:
		return nil
	case <-ctx.Done():
		l.timer.Stop()
		return ctx.Err()
	}
}

// stopped is the error for a context that ended between attempts. It wraps
// both the context error and the conflict being retried, so errors.Is finds
// context.Canceled and errors.As still finds the driver's 40001.
func (l *loop) stopped(attempts int, ctxErr error) error {
	if l.last == nil {
		return ctxErr
	}
	return fmt.Errorf("occ: %w after %d attempts; last conflict: %w", ctxErr, attempts, l.last)
}

func (l *loop) emit(k Kind, e Event) {
	e.Operation = l.s.Operation
	if e.Err != nil {
		e.SQLState = SQLState(e.Err)
		e.Class = Classify(e.Err)
		if e.Class == Retryable {
			e.OCCCode = OCCCode(e.Err)
		}
	}
	l.s.Observer.Observe(k, e)
}

func (l *loop) done(attempts int, err error) error {
	if l.observed {
		l.emit(KindDone, Event{Attempt: attempts, Duration: l.now().Sub(l.start), Err: err})
	}
	return err
}
