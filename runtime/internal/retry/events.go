package retry

import "time"

// Kind says which hook an Event is for.
type Kind uint8

// The events of one call, in the order they can occur.
const (
	KindAttempt         Kind = iota + 1 // an attempt ended, committed or not
	KindConflict                        // an attempt failed with 40001
	KindRetry                           // about to back off and try again
	KindConditionFailed                 // fn returned a condition-failed error
	KindDone                            // the call is returning
)

// Event is what an Observer is told. occ.Event has the same fields.
type Event struct {
	Operation string
	Attempt   int
	Duration  time.Duration
	Delay     time.Duration
	SQLState  string
	OCCCode   string
	Class     Class
	Err       error
}

// Observer receives the loop's events. It is only consulted when set, so a
// call without hooks does not even read the clock.
type Observer interface {
	Observe(Kind, Event)
}
