package retry

import (
	"fmt"
	"strings"
)

// Class is how the loop treats an error. occ.ErrorType mirrors it value for
// value.
type Class int

// The classes, in the order Classify tests them.
const (
	Retryable Class = iota + 1
	ConditionFailed
	Unsupported
	Permanent
)

// SQLSTATEs the loop acts on.
const (
	SerializationFailure = "40001"
	FeatureNotSupported  = "0A000"
	ProgramLimitExceeded = "54000" // DSQL's per-transaction row, size and age limits
)

// Classify applies the strict order: condition failed, then 40001 anywhere in
// the error tree, then 0A000, then everything else is permanent. It returns 0
// for a nil error.
func Classify(err error) Class {
	switch {
	case err == nil:
		return 0
	case Errors.IsConditionFailed(err):
		return ConditionFailed
	case HasSQLState(err, SerializationFailure):
		return Retryable
	case HasSQLState(err, FeatureNotSupported):
		return Unsupported
	}
	return Permanent
}

// sqlStater is the method pgx (*pgconn.PgError, natively and through
// database/sql) and lib/pq (*pq.Error) both have, so no driver is imported.
type sqlStater interface{ SQLState() string }

// HasSQLState reports whether any error in err's tree carries code. It walks
// the tree like errors.As does but looks at every SQLSTATE, so a join of a
// context error and a 40001 is still seen as a 40001.
func HasSQLState(err error, code string) bool {
	if err == nil {
		return false
	}
	if s, ok := err.(sqlStater); ok && s.SQLState() == code {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return HasSQLState(u.Unwrap(), code)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if HasSQLState(e, code) {
				return true
			}
		}
	}
	return false
}

// SQLState returns the first SQLSTATE in err's tree, or "".
func SQLState(err error) string {
	if err == nil {
		return ""
	}
	if s, ok := err.(sqlStater); ok {
		return s.SQLState()
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return SQLState(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if s := SQLState(e); s != "" {
				return s
			}
		}
	}
	return ""
}

// OCCCode returns DSQL's conflict code ("OC000" data conflict, "OC001" stale
// schema cache) from a 40001's message, or "". DSQL puts it in the message
// text, not the SQLSTATE, so it only labels metrics; it never decides a retry.
func OCCCode(err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	for i := strings.Index(msg, "OC"); i >= 0; {
		if i+5 <= len(msg) && isDigits(msg[i+2:i+5]) && (i == 0 || !isAlnum(msg[i-1])) {
			return msg[i : i+5]
		}
		j := strings.Index(msg[i+2:], "OC")
		if j < 0 {
			break
		}
		i += 2 + j
	}
	return ""
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// ErrorBuilder makes the error values callers see.
type ErrorBuilder interface {
	IsConditionFailed(error) bool
	Exhausted(attempts int, last error) error
	Ambiguous(commitErr error) error
	RolledBackAtCommit(commitErr error) error
	Unsupported(error) error
	LimitExceeded(error) error
}

// Errors is installed by package occ's init. The public error types live in
// occ, where users read their documentation; occpgx imports occ, so Errors is
// in place before any loop runs.
var Errors ErrorBuilder

// CASMessage is the ConditionFailedError message ExecCAS gives for a
// conditional write that affected n rows instead of one.
func CASMessage(n int64, query string) string {
	return fmt.Sprintf("%d rows affected, want exactly 1: %s", n, strings.Join(strings.Fields(query), " "))
}
