package retry // want package:`txflow\(retry\{retries:1 predicates:1\}\)`

// Package retry re-runs what it is handed on SQLSTATE 40001: the fact
// carries the retry helper (by its body) and the predicate.

import "strings"

// IsConflict reports a serialization failure.
func IsConflict(err error) bool {
	return err != nil && strings.Contains(err.Error(), "40001")
}

// Do runs fn until it does not fail with a serialization failure.
func Do(fn func() error) error {
	for {
		err := fn()
		if !IsConflict(err) {
			return err
		}
	}
}
