package sharelock

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	"github.com/jackc/pgx/v5"
	"github.com/jmoiron/sqlx"
	"github.com/pkg/errors"

	"sharelock/queries"
)

// Temporal-style constants: the base query and its lock variants.
const (
	lockExecutionQueryBase = `SELECT db_record_version, next_event_id FROM executions
 WHERE shard_id = $1 AND namespace_id = $2 AND workflow_id = $3 AND run_id = $4`
	writeLockExecutionQuery = lockExecutionQueryBase + " FOR UPDATE"
	readLockExecutionQuery  = lockExecutionQueryBase + " FOR SHARE" // want `DSQL001 share-lock: FOR SHARE is not supported by Aurora DSQL`
)

const readLockShardQuery = "SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE" // want `DSQL001 share-lock: FOR SHARE` `DSQL005 lock-without-retry`

const writeLockShardQuery = "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE"

func readLockShards(ctx context.Context, db *sql.DB, shardID int) (int64, error) {
	var rangeID int64
	// The constant is reported at its declaration, not at this use.
	err := db.QueryRowContext(ctx, readLockShardQuery, shardID).Scan(&rangeID)
	return rangeID, err
}

func lockTaskQueue(ctx context.Context, tx *sql.Tx, hash, id int) error {
	_, err := tx.ExecContext(ctx, "SELECT range_id FROM task_queues_v2\n\tWHERE range_hash = $1 AND task_queue_id = $2\n\tFOR NO KEY\n\tUPDATE", hash, id) // want `DSQL001 share-lock: FOR NO KEY UPDATE is not supported`
	return err
}

func inCTE(ctx context.Context, db *sql.Tx) {
	db.ExecContext(ctx, "WITH s AS (SELECT shard_id FROM shards WHERE shard_id = $1 FOR SHARE) UPDATE shards SET owner = $2 FROM s WHERE shards.shard_id = s.shard_id AND shards.owner = $3") // want `DSQL001 share-lock: FOR SHARE`
	db.QueryContext(ctx, "SELECT * FROM executions WHERE run_id IN (SELECT run_id FROM current_executions WHERE workflow_id = $1 for share)")                                                 // want `DSQL001 share-lock: FOR SHARE`
	db.QueryContext(ctx, "(SELECT id FROM a WHERE k = $1 FOR UPDATE) UNION ALL (SELECT id FROM b WHERE k = $1 FOR SHARE)")                                                                    // want `DSQL001 share-lock: FOR SHARE`
}

func placeholders(db *sqlx.DB, tx *sqlx.Tx, ctx context.Context) {
	var v int
	db.Get(&v, "SELECT range_id FROM shards WHERE shard_id = ? FOR SHARE", 1)                  // want `DSQL001 share-lock` `DSQL005 lock-without-retry`
	tx.GetContext(ctx, &v, "SELECT range_id FROM shards WHERE shard_id = :shard_id FOR SHARE") // want `DSQL001`
	q, _, _ := sqlx.In("SELECT * FROM leases WHERE resource_id IN (?) FOR SHARE", []int{1})    // want `DSQL001`
	_ = q
}

func pgxNamed(ctx context.Context, conn *pgx.Conn) {
	conn.QueryRow(ctx, "SELECT range_id FROM shards WHERE shard_id = @shard_id FOR SHARE") // want `DSQL001 share-lock` `DSQL005 lock-without-retry`
}

func sprintfTable(ctx context.Context, db *sql.Tx, table string) {
	db.QueryContext(ctx, fmt.Sprintf("SELECT range_id FROM %s WHERE shard_id = %d FOR SHARE", table, 1)) // want `DSQL001`
	db.QueryContext(ctx, fmt.Sprintf("SELECT range_id FROM %[1]s WHERE shard_id = $1 FOR UPDATE", table))
}

func concatenation(ctx context.Context, db *sql.DB, where string) {
	db.QueryContext(ctx, "SELECT * FROM shards WHERE "+where+" FOR SHARE") // want `DSQL001 share-lock` `DSQL005 lock-without-retry`
	db.QueryContext(ctx, queries.LockShardBase+" FOR SHARE")               // want `DSQL001 share-lock` `DSQL005 lock-without-retry`
	// Named constants of other packages are reported where they are
	// declared; the lock it takes here on a pool, here, naming it.
	db.QueryContext(ctx, queries.ReadLockShard) // want `DSQL005 lock-without-retry: SELECT \.\.\. FOR SHARE .*at queries.go:7: this statement locks`
}

func fragment(base string) string {
	const suffix = " FOR SHARE" // want `DSQL001`
	return base + suffix
}

// Negatives: SQL words in comments, string literals, prose and log messages.
func quiet(ctx context.Context, db *sql.DB) {
	// SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE
	db.QueryContext(ctx, "SELECT 'FOR SHARE' AS mode FROM shards -- FOR SHARE\n WHERE shard_id = $1 /* FOR SHARE */")
	_ = "please update the record FOR SHARE holders"
	_ = "Select the rows for share holders"
	log.Printf("SELECT range_id FROM shards WHERE shard_id = %d FOR SHARE", 1)
	_ = fmt.Errorf("select for share failed: SELECT range_id FROM shards FOR SHARE")
	_ = errors.Wrapf(nil, "execute %q", "template")
	_ = errors.Errorf("SELECT range_id FROM shards FOR SHARE failed")
	_ = writeLockShardQuery
	_ = writeLockExecutionQuery
	_ = readLockExecutionQuery
	// CQL lookalike: not SQL.
	_ = "SELECT range_id FROM shards WHERE shard_id = ? ALLOW FILTERING"
	_ = "SELECT 1 FOR SHARE" // locks nothing: no FROM
}

// Every problem of the statement at once: the strength DSQL rejects, the
// wait policy that never acts, and the retry the lock needs once DSQL001's
// fix makes it a FOR UPDATE.
func claimNoKey(ctx context.Context, db *sql.DB) {
	db.QueryContext(ctx, "SELECT id FROM jobs WHERE state = 'ready' LIMIT 1 FOR NO KEY UPDATE SKIP LOCKED") // want `DSQL001 share-lock: FOR NO KEY UPDATE` `DSQL005 lock-without-retry: this statement locks` `DSQL006 lock-wait-policy: SKIP LOCKED`
}
