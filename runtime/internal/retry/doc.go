// Package retry is the one optimistic-concurrency retry loop behind
// runtime/occ (database/sql) and runtime/occpgx (pgx): begin a fresh
// transaction, run the caller's function, commit, and on SQLSTATE 40001 roll
// back, back off and run the whole transaction again.
//
// It knows drivers only through the small Driver interface, so both public
// packages share the same decisions: what is retried, how long to wait, which
// COMMIT failures are ambiguous, and which events the hooks see.
package retry
