package occ

import (
	"errors"
	"fmt"

	"github.com/dsqllint/dsqllint/runtime/internal/retry"
)

// ErrorType is the class of an error as the retry loop sees it.
type ErrorType int

// The classes, in the order ClassifyError tests them.
const (
	// ErrorTypeRetryable: SQLSTATE 40001, an OCC conflict. The
	// transaction rolled back and may be run again.
	ErrorTypeRetryable ErrorType = iota + 1
	// ErrorTypeConditionFailed: a compare-and-set matched no row because
	// another writer won. Never retried.
	ErrorTypeConditionFailed
	// ErrorTypeUnsupportedFeature: SQLSTATE 0A000, SQL that Aurora DSQL
	// does not support. A bug to fix, never retried.
	ErrorTypeUnsupportedFeature
	// ErrorTypePermanent: everything else. Never retried.
	ErrorTypePermanent
)

// String returns the metrics label: retryable, condition_failed,
// unsupported_feature or permanent.
func (t ErrorType) String() string {
	switch t {
	case ErrorTypeRetryable:
		return "retryable"
	case ErrorTypeConditionFailed:
		return "condition_failed"
	case ErrorTypeUnsupportedFeature:
		return "unsupported_feature"
	case ErrorTypePermanent:
		return "permanent"
	}
	return "none"
}

// ClassifyError classifies err in this strict order: a ConditionFailedError
// anywhere in its chain, then SQLSTATE 40001 anywhere in it, then 0A000, and
// everything else is permanent. SQLSTATEs are read through the SQLState()
// method of pgx and lib/pq errors, so errors wrapped with %w are seen and
// errors formatted with %v are not. An error that wraps a 40001, such as a
// *RetriesExhaustedError, classifies as retryable. ClassifyError(nil) is 0.
func ClassifyError(err error) ErrorType { return ErrorType(retry.Classify(err)) }

// ConditionFailedError reports that a conditional write (compare-and-set on a
// version or fencing column such as range_id) matched no row: another actor
// owns the record now. It is a normal outcome of CAS coordination and is
// never retried, since retrying a lost race only livelocks.
type ConditionFailedError struct {
	Msg string
}

func (e *ConditionFailedError) Error() string { return "condition failed: " + e.Msg }

// IsConditionFailedError reports whether err is or wraps a
// *ConditionFailedError.
func IsConditionFailedError(err error) bool {
	var cf *ConditionFailedError
	return errors.As(err, &cf)
}

// RetriesExhaustedError is returned when every attempt allowed by
// RetryConfig.MaxRetries failed with SQLSTATE 40001. It wraps the last
// conflict, so errors.As still reaches the driver's error.
type RetriesExhaustedError struct {
	Attempts int
	Err      error
}

func (e *RetriesExhaustedError) Error() string {
	return fmt.Sprintf("occ: transaction still conflicting after %d attempts: %v", e.Attempts, e.Err)
}

func (e *RetriesExhaustedError) Unwrap() error { return e.Err }

// AmbiguousCommitError is returned when COMMIT failed without a SQLSTATE (a
// broken connection, a cancelled context): the transaction may or may not
// have committed. It is never retried, because running fn again could apply
// its writes twice. Check the database, or make the transaction idempotent.
type AmbiguousCommitError struct {
	Err error
}

func (e *AmbiguousCommitError) Error() string {
	return fmt.Sprintf("occ: commit outcome unknown, not retried (the transaction may have committed): %v", e.Err)
}

func (e *AmbiguousCommitError) Unwrap() error { return e.Err }

// CommitRolledBackError is returned when COMMIT answered ROLLBACK because a
// statement inside the transaction had failed and fn returned nil anyway
// (pgx.ErrTxCommitRollback). The real error, perhaps a 40001 that could have
// been retried, was swallowed inside fn, so it is not retried: fix fn to
// return it.
type CommitRolledBackError struct {
	Err error
}

func (e *CommitRolledBackError) Error() string {
	return fmt.Sprintf("occ: %v: an error inside the transaction was swallowed; return it from fn so a conflict can be retried", e.Err)
}

func (e *CommitRolledBackError) Unwrap() error { return e.Err }

// UnsupportedFeatureError wraps a SQLSTATE 0A000 error, which on Aurora DSQL
// means the SQL uses something it does not support. Retrying cannot help.
type UnsupportedFeatureError struct {
	Err error
}

func (e *UnsupportedFeatureError) Error() string {
	return fmt.Sprintf("occ: %v (not retried: Aurora DSQL does not support this SQL, for example SAVEPOINT, TRUNCATE, "+
		"SELECT ... FOR SHARE or FOR NO KEY UPDATE, advisory locks, temporary tables, or an isolation level other than "+
		"REPEATABLE READ; dsqllint finds these statically)", e.Err)
}

func (e *UnsupportedFeatureError) Unwrap() error { return e.Err }

// LimitExceededError wraps a SQLSTATE 54000 error. On Aurora DSQL that is a
// per-transaction limit (3,000 modified rows, 10 MiB of modified data, 5
// minutes), which no retry can get under.
type LimitExceededError struct {
	Err error
}

func (e *LimitExceededError) Error() string {
	return fmt.Sprintf("occ: %v (not retried: Aurora DSQL limits a transaction to 3,000 modified rows, "+
		"10 MiB of modified data and 5 minutes; split the work into smaller transactions)", e.Err)
}

func (e *LimitExceededError) Unwrap() error { return e.Err }

// builder gives the shared retry loop this package's error types.
type builder struct{}

func init() { retry.Errors = builder{} }

func (builder) IsConditionFailed(err error) bool { return IsConditionFailedError(err) }

func (builder) Exhausted(attempts int, last error) error {
	return &RetriesExhaustedError{Attempts: attempts, Err: last}
}

func (builder) Ambiguous(err error) error          { return &AmbiguousCommitError{Err: err} }
func (builder) RolledBackAtCommit(err error) error { return &CommitRolledBackError{Err: err} }
func (builder) Unsupported(err error) error        { return &UnsupportedFeatureError{Err: err} }
func (builder) LimitExceeded(err error) error      { return &LimitExceededError{Err: err} }
