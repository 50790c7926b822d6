// Package sqlerr turns drivers' errors into the module's own: a
// serialization failure becomes ErrConflict().
package sqlerr

import "errors"

type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

// ErrConflict is what a serialization failure becomes.
func ErrConflict() *Error { return &Error{"concurrent update"} }

type sqlState interface{ SQLState() string }

// Translate returns the module's error for a driver's.
func Translate(err error) error {
	var s sqlState
	if errors.As(err, &s) {
		switch s.SQLState() {
		case "40001":
			return errors.Join(ErrConflict(), err)
		}
	}
	return err
}
