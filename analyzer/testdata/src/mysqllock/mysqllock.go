package mysqllock

import "database/sql"

const lockShard = "SELECT range_id FROM shards WHERE shard_id = ? LOCK IN SHARE MODE" // want `DSQL002 mysql-share-lock: LOCK IN SHARE MODE is MySQL syntax`

const lockExecution = "SELECT db_record_version, next_event_id FROM executions\nWHERE shard_id = ? AND run_id = ?\nlock in\n  share mode" // want `DSQL002`

func lockTaskQueue(db *sql.DB) {
	db.Query("SELECT range_id FROM task_queues WHERE range_hash = ? AND task_queue_id = ? LOCK IN SHARE MODE", 1, 2) // want `DSQL002` `DSQL005 lock-without-retry`
}

const suffix = " LOCK IN SHARE MODE" // want `DSQL002`

// Negatives.
const forUpdate = "SELECT range_id FROM shards WHERE shard_id = ? FOR UPDATE"

const prose = "the tool will lock in share mode when asked"

const inString = "SELECT 'LOCK IN SHARE MODE' FROM shards WHERE shard_id = ?"
