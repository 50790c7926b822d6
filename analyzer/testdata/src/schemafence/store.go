// Package schemafence judges writes and locks by the schema in its
// migrations/ directory.
package schemafence

import (
	"context"
	"database/sql"
)

// A key-only DELETE of a versioned table nobody claims: a delete wins
// over an edit by design.
const deleteExecution = `DELETE FROM executions
WHERE shard_id = $1 AND namespace_id = $2 AND workflow_id = $3 AND run_id = $4`

// The same delete fenced on the version.
const deleteExecutionFenced = `DELETE FROM executions
WHERE shard_id = $1 AND namespace_id = $2 AND workflow_id = $3 AND run_id = $4 AND db_record_version = $5`

// Payload-only update of the same table: quiet.
const updateExecutionData = `UPDATE executions SET data = $1
WHERE shard_id = $2 AND namespace_id = $3 AND workflow_id = $4 AND run_id = $5`

// State-machine guards fence. An owner set where free, which no holder
// compares afterwards, is no claim protocol: taking it is quiet.
const (
	cancelJobs  = `UPDATE jobs SET status = 'cancelled' WHERE id = ANY($1) AND status NOT IN ('done', 'failed')`
	takeRecord  = `UPDATE records SET owner_id = $1 WHERE id = $2 AND owner_id <> $1`
	claimRecord = `UPDATE records SET owner_id = $1 WHERE id = $2 AND owner_id IS NULL`
)

// Negative twins of the key-only delete: a guarded bulk delete, and a
// delete of a job only as it was read.
const (
	purgeFinished = `DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE status = 'done' LIMIT 100)`
	deleteDone    = `DELETE FROM jobs WHERE id = $1 AND status IS NOT DISTINCT FROM 'done'`
)

// Compared with the value it writes, a finish skips only a write that
// changes nothing: it overwrites a cancelled job as well.
const finishJob = `UPDATE jobs SET status = 'done' WHERE id = $1 AND status IS DISTINCT FROM 'done'` // want `DSQL003 unfenced-write: status is compare-and-set: store.go:26 compare-and-sets status; this UPDATE changes status by the row's key without comparing it.* \(status is declared at migrations/000001_init.up.sql:10\)`

// A package version is text: not a fence column, not coordination state.
const bumpPackage = `UPDATE packages SET version = $1 WHERE name = $2`

// A lock by a column that is not the key.
const lockByName = `SELECT id, owner_id FROM records WHERE dns_name = $1 FOR UPDATE` // want `DSQL008 lock-scope: FOR UPDATE whose WHERE pins dns_name, not the primary key \(id\) of records`

// Negative twin: locked by the primary key.
const lockByID = `SELECT id, owner_id FROM records WHERE id = $1 FOR UPDATE`

// Two of four primary-key columns.
const lockPartly = `SELECT db_record_version FROM executions WHERE shard_id = $1 AND namespace_id = $2 FOR UPDATE` // want `DSQL008 lock-scope: FOR UPDATE whose WHERE pins shard_id, namespace_id but not workflow_id, run_id of the primary key`

// DSQL109 (an unbounded write) is disabled by .dsqllint.yaml.
const purge = `DELETE FROM packages`

// A CAS on a unique key is a single-row CAS: its count must be read.
func Steal(ctx context.Context, tx *sql.Tx, owner, name string, etag, next string) error {
	_, err := tx.ExecContext(ctx, `UPDATE records SET owner_id = $1, etag = $2 WHERE dns_name = $3 AND etag = $4`, owner, next, name, etag) // want `DSQL004 unchecked-cas`
	return err
}

// Negative twin: a state transition of many rows, not one; its count is
// not a CAS verdict.
func StartQueue(ctx context.Context, tx *sql.Tx, queue string) error {
	_, err := tx.ExecContext(ctx, `UPDATE jobs SET status = 'running' WHERE queue = $1 AND status = 'ready'`, queue)
	return err
}

// The version bump that makes executions' state contended.
const bumpExecution = `UPDATE executions SET db_record_version = $1
WHERE shard_id = $2 AND namespace_id = $3 AND workflow_id = $4 AND run_id = $5 AND db_record_version = $6`
