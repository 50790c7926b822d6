// Temporal-style persistence: shards, executions, task queues, namespaces.
package unfenced

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jmoiron/sqlx"
)

const (
	// Fenced writes: the compare-and-swap predicate is in the WHERE.
	updateShardQuery = `UPDATE shards SET range_id = $1, data = $2 WHERE shard_id = $3 AND range_id = $4`

	updateExecutionQuery = `UPDATE executions SET next_event_id = :next_event_id, data = :data
 WHERE shard_id = :shard_id AND namespace_id = :namespace_id AND workflow_id = :workflow_id AND run_id = :run_id AND next_event_id = :old_next_event_id`

	updateNamespaceMetadataQuery = "UPDATE namespace_metadata SET notification_version = $1 WHERE partition_id = $2 AND notification_version = $3"

	// Unfenced: bumps range_id with no check that the caller still owns it.
	bumpShardQuery = "UPDATE shards SET range_id = range_id + 1 WHERE shard_id = $1" // want `DSQL003 unfenced-write: range_id is compare-and-set: temporal.go:14 compare-and-sets range_id; this UPDATE changes range_id by the row's key without comparing it.* add .AND range_id = \$2.`

	// Unfenced: task_queues is written with a new range_id by key only,
	// though the lease below compare-and-sets it.
	updateTaskQueueQuery = "UPDATE task_queues SET range_id = :range_id, data = :data WHERE range_hash = :range_hash AND task_queue_id = :task_queue_id" // want `DSQL003 unfenced-write: range_id is compare-and-set: temporal.go:27 .* add .AND range_id = :expected_range_id.`
	leaseTaskQueueQuery  = "UPDATE task_queues SET range_id = :range_id WHERE range_hash = :range_hash AND task_queue_id = :task_queue_id AND range_id = :prev_range_id"

	// A payload-only write of a table other statements fence on
	// next_event_id: it changes nothing a racing writer compares.
	updateExecutionDataQuery = "UPDATE executions SET data = $1 WHERE shard_id = $2 AND run_id = $3"

	// Deleting an execution by key: nobody claims executions, and a
	// delete wins over an edit by design, whatever version it has.
	deleteExecutionQuery = "DELETE FROM executions WHERE shard_id = ? AND namespace_id = ? AND workflow_id = ? AND run_id = ?"

	// Sprintf-built table names still parse; the table could be any, so
	// no fence of the module can be matched to it.
	updateTasksTemplate = "UPDATE %s SET range_id = $1 WHERE task_queue_id = $2"
	fencedTasksTemplate = "UPDATE %s SET range_id = $1 WHERE task_queue_id = $2 AND range_id = $3"
)

func tasksTable(i int) string { return fmt.Sprintf(updateTasksTemplate, fmt.Sprint("tasks_", i)) }

func cqlLookalike(db *sql.DB) {
	// Cassandra lightweight transaction: not SQL.
	_ = "UPDATE shards SET range_id = ? WHERE shard_id = ? IF range_id = ?"
	_ = "UPDATE executions USING TTL 10 SET data = ? WHERE shard_id = ?"
}

// WriteLockShards locks the row first, compares in Go, then writes by key:
// the lock fences the write.
func writeLockThenUpdate(ctx context.Context, tx *sql.Tx, shardID int) error {
	var rangeID int64
	if err := tx.QueryRowContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", shardID).Scan(&rangeID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE shards SET range_id = $1 WHERE shard_id = $2", rangeID+1, shardID)
	return err
}

// The lock in a helper called earlier with the same transaction counts too.
func lockNamespace(ctx context.Context, tx *sql.Tx, partition int) (int64, error) {
	var v int64
	err := tx.QueryRowContext(ctx, "SELECT notification_version FROM namespace_metadata WHERE partition_id = $1 FOR UPDATE", partition).Scan(&v)
	return v, err
}

func bumpNamespace(ctx context.Context, tx *sql.Tx, partition int) error {
	v, err := lockNamespace(ctx, tx, partition)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, "UPDATE namespace_metadata SET notification_version = $1 WHERE partition_id = $2", v+1, partition)
	return err
}

// The cluster's version is compare-and-set; writing first and locking
// afterwards does not fence the write.
const casClusterVersion = "UPDATE cluster_metadata SET version = $1 WHERE id = $2 AND version = $3"

func updateThenLock(ctx context.Context, tx *sql.Tx, id int) {
	tx.ExecContext(ctx, "UPDATE cluster_metadata SET version = $1 WHERE id = $2", 2, id) // want `DSQL003`
	tx.QueryRowContext(ctx, "SELECT version FROM cluster_metadata WHERE id = $1 FOR UPDATE", id)
}

// A lock on another key does not fence the write either.
const casTaskQueueV2 = "UPDATE task_queues_v2 SET range_id = $1 WHERE range_hash = $2 AND task_queue_id = $3 AND range_id = $4"

func otherKey(ctx context.Context, tx *sqlx.Tx, a, b int) {
	tx.GetContext(ctx, new(int), "SELECT range_id FROM task_queues_v2 WHERE range_hash = $1 AND task_queue_id = $2 FOR UPDATE", a, b)
	tx.NamedExec("UPDATE task_queues_v2 SET range_id = :range_id WHERE range_hash = :range_hash", nil) // want `DSQL003`
}

// Named constants: the lock and the write are declared apart and run in
// the same function; every use of the write follows the lock.
const (
	casQueueRange      = "UPDATE queues SET range_id = $1 WHERE queue_id = $2 AND range_id = $3"
	lockQueueQuery     = "SELECT range_id FROM queues WHERE queue_id = $1 FOR UPDATE"
	setQueueRange      = "UPDATE queues SET range_id = $1 WHERE queue_id = $2"
	setQueueRangeBlind = "UPDATE queues SET range_id = $1 WHERE queue_id = $2 AND $3 = $3" // want `DSQL003`
)

func renewQueue(ctx context.Context, tx *sql.Tx, id int) {
	tx.QueryRowContext(ctx, lockQueueQuery, id)
	tx.ExecContext(ctx, setQueueRange, 2, id)
	tx.ExecContext(ctx, setQueueRangeBlind, 2, id, 0)
}

func blindQueue(ctx context.Context, tx *sql.Tx, id int) {
	tx.ExecContext(ctx, setQueueRangeBlind, 2, id, 0)
}
