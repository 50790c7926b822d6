// Package compatlock holds lock wait policies, explicit locks and lock
// scopes: DSQL006, DSQL007, DSQL008; and two-word texts such as LOCK held,
// prose or statement by how they are written.
package compatlock

import (
	"context"
	"database/sql"
	"fmt"
)

// A migration tool's lock, as golang-migrate and goose take it.
const migrationLock = "SELECT pg_advisory_lock($1)" // want `DSQL007 explicit-lock: pg_advisory_lock is not supported by Aurora DSQL \(0A000 function pg_advisory_lock not supported\)`

// Two words that parse as LOCK held, NOTIFY user: a metric's name, a test
// suite's, a switch case, never run as SQL.
type event struct{ Name string }

var lockHeld = event{Name: "lock held"}

func suiteName() string { return "Lock Suite" }

func emit(e event) string {
	switch e.Name {
	case "lock held", "notify user", "vacuum cleaner", "truncate text", "release called", "execute failed", "savepoint created", "reset password":
		return "ok"
	}
	return ""
}

// Upper-case keywords are SQL: a statement constant, though nothing here
// runs it.
const truncateJobs = "TRUNCATE jobs" // want `DSQL105 unsupported-statement: TRUNCATE is not supported`

const listenJobs = "LISTEN jobs" // want `DSQL105 unsupported-statement: LISTEN is not supported`

// A migration runner's table lock, its mode a parameter.
const lockInMode = `LOCK TABLE %s IN %s MODE;` // want `DSQL007 explicit-lock: LOCK TABLE`

// Run as a query, the same two words are SQL.
const lockAccounts = "LOCK accounts" // want `DSQL007 explicit-lock: LOCK TABLE`

func lockTable(ctx context.Context, db *sql.DB) {
	db.ExecContext(ctx, lockAccounts)
	db.ExecContext(ctx, "LOCK ledger")                                                     // want `DSQL007 explicit-lock: LOCK TABLE`
	db.ExecContext(ctx, "LOCK TABLE accounts IN SHARE ROW EXCLUSIVE MODE")                 // want `DSQL007 explicit-lock: LOCK TABLE is rejected by Aurora DSQL \(unsupported statement: Lock\)`
	db.QueryRowContext(ctx, "SELECT pg_try_advisory_xact_lock(hashtext($1))", "leader")    // want `DSQL007 explicit-lock: pg_try_advisory_xact_lock`
	db.ExecContext(ctx, "SELECT pg_advisory_unlock($1), pg_advisory_unlock_shared($1)", 7) // want `DSQL007` `DSQL007`
	db.QueryRowContext(ctx, fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", 42))           // want `DSQL007`
	db.QueryRowContext(ctx, "select PG_CATALOG.PG_ADVISORY_LOCK_SHARED(1)")                // want `DSQL007 explicit-lock: pg_advisory_lock_shared`
	// The lock mode known only at run time breaks the parse, not the verdict.
	db.ExecContext(ctx, fmt.Sprintf(lockInMode, "schema_migrations", "ACCESS EXCLUSIVE"))
	db.ExecContext(ctx, fmt.Sprintf("LOCK %s IN %s MODE", "schema_migrations", "SHARE")) // want `DSQL007 explicit-lock: LOCK TABLE`

	// Negatives: a lease row instead of a lock, the words in strings and
	// comments, columns and log messages that look alike.
	db.ExecContext(ctx, "UPDATE locks SET owner = $1, expires_at = $2 WHERE name = $3 AND expires_at < now()", "me", 1, "leader")
	db.QueryRowContext(ctx, "SELECT 'pg_advisory_lock(1)' -- pg_advisory_lock(1)\n FROM locks WHERE name = $1", "x")
	db.QueryRowContext(ctx, "SELECT pg_advisory_lock_wait_ms FROM lock_stats WHERE name = $1", "x")
	fmt.Println("LOCK TABLE accounts before calling pg_advisory_lock(1)")
	db.ExecContext(ctx, fmt.Sprintf("lock %s held by %s", "leader", "me"))
}

func lockScope(ctx context.Context, db *sql.Tx, ids []int64) {
	db.QueryContext(ctx, "SELECT j.id FROM jobs j JOIN runs r ON r.job_id = j.id WHERE j.id = $1 FOR UPDATE", 1) // want `DSQL008 lock-scope: FOR UPDATE over a join of jobs, runs locks rows of more than one table`
	db.QueryContext(ctx, "SELECT * FROM jobs WHERE id = ANY($1) FOR UPDATE", ids)                                // want `DSQL008 lock-scope: FOR UPDATE whose WHERE pins no row by key equality \(only IN\)`
	db.QueryContext(ctx, "SELECT * FROM jobs WHERE run_at < now() ORDER BY run_at LIMIT 10 FOR UPDATE")          // want `DSQL008 lock-scope: FOR UPDATE whose WHERE pins no row by key equality \(only a range\)`
	db.QueryContext(ctx, "SELECT * FROM jobs WHERE id = $1 OR parent_id = $1 FOR UPDATE", 1)                     // want `DSQL008 lock-scope: .*only OR`
	db.QueryContext(ctx, "SELECT * FROM settings FOR UPDATE")                                                    // want `DSQL008 lock-scope: FOR UPDATE whose WHERE is missing`

	// Negatives: one table pinned by key equality; a join that locks one
	// table with OF.
	db.QueryContext(ctx, "SELECT * FROM jobs WHERE id = $1 FOR UPDATE", 1)
	db.QueryContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 AND namespace = $2 FOR UPDATE", 1, "n")
	db.QueryContext(ctx, "SELECT j.* FROM jobs j JOIN runs r ON r.job_id = j.id WHERE j.id = $1 FOR UPDATE OF j", 1)
	db.QueryContext(ctx, "SELECT * FROM jobs WHERE id = $1 FOR KEY SHARE", 1)
	db.QueryContext(ctx, "SELECT * FROM jobs WHERE id = ANY($1)", ids)

	// A clause on a query that reads only WITH queries locks no row
	// (PostgreSQL locks the rows inside the WITH query, judged there);
	// FOR SHARE is refused whatever it locks.
	db.QueryContext(ctx, `WITH due AS (SELECT id, run_at FROM jobs WHERE id = $1 FOR UPDATE),
		late AS (SELECT id FROM due WHERE run_at < $2 FOR UPDATE SKIP LOCKED)
		DELETE FROM jobs USING late WHERE jobs.id = late.id`, 1, 2)
	db.QueryContext(ctx, `WITH due AS (SELECT id FROM jobs WHERE run_at < $1 FOR UPDATE) SELECT id FROM due`, 1) // want `DSQL008 lock-scope: FOR UPDATE whose WHERE pins no row by key equality \(only a range\)`
	db.QueryContext(ctx, `WITH due AS (SELECT id FROM jobs WHERE id = $1) SELECT id FROM due FOR SHARE`, 1)      // want `DSQL001 share-lock`
}

func waitPolicy(ctx context.Context, db *sql.Tx) {
	db.QueryContext(ctx, "SELECT id FROM jobs WHERE status = 'pending' ORDER BY run_at LIMIT 10 FOR UPDATE SKIP LOCKED") // want `DSQL006 lock-wait-policy: SKIP LOCKED skips nothing on Aurora DSQL`
	db.QueryRowContext(ctx, "SELECT * FROM jobs WHERE id = $1 FOR UPDATE NOWAIT", 1)                                     // want `DSQL006 lock-wait-policy: NOWAIT never fires on Aurora DSQL`
	db.QueryContext(ctx, jobsBase+" FOR UPDATE SKIP LOCKED")                                                             // want `DSQL006 lock-wait-policy: SKIP LOCKED`

	// Negatives: no wait policy; the words in a string literal.
	db.QueryContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", 1)
	db.QueryContext(ctx, "SELECT 'FOR UPDATE SKIP LOCKED' FROM jobs WHERE id = $1", 1)
}

const jobsBase = "SELECT id FROM jobs WHERE id = $1"
