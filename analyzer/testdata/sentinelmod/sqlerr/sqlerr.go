// Package sqlerr translates drivers' errors into the module's own, as
// Ory's sqlcon does: a serialization failure becomes ErrConflict().
package sqlerr

import "errors"

type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

// ErrConflict is what a serialization failure becomes.
func ErrConflict() *Error { return &Error{"unable to serialize access due to a concurrent update"} }

// ErrNotFound is what a missing row becomes.
func ErrNotFound() *Error { return &Error{"not found"} }

// ErrDuplicate is what a unique violation becomes.
var ErrDuplicate = errors.New("duplicate")

// ErrAborted is what a serialization failure becomes in Classify.
var ErrAborted = errors.New("aborted")

type sqlState interface{ SQLState() string }

// Translate returns the module's error for a driver's.
func Translate(err error) error {
	var s sqlState
	if !errors.As(err, &s) {
		return err
	}
	switch s.SQLState() {
	case "40001", "CR000":
		return errors.Join(ErrConflict(), err)
	case "23505":
		return ErrDuplicate
	case "02000":
		return ErrNotFound()
	}
	return err
}

// Classify is Translate's variable twin.
func Classify(err error) error {
	var s sqlState
	if errors.As(err, &s) && s.SQLState() == "40001" {
		return ErrAborted
	}
	return err
}
