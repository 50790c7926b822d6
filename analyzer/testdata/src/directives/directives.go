package directives

//dsqllint:ignore DSQL003 -- the caller holds the shard row FOR UPDATE in the same transaction
const bumpShard = "UPDATE shards SET range_id = range_id + 1 WHERE shard_id = $1"

const readLock = "SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE" //dsqllint:ignore DSQL001 -- PostgreSQL-only code path

//dsqllint:ignore DSQL003 -- multi-line raw string: the directive sits above the declaration
const bumpTaskQueue = `
	UPDATE task_queues
	SET range_id = range_id + 1
	WHERE range_hash = $1`

// The lease that makes task_queues contended.
const leaseTaskQueue = "UPDATE task_queues SET range_id = $1 WHERE range_hash = $2 AND range_id = $3"

const sqlComment = `-- dsqllint:ignore DSQL001 -- read-only replica path
SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE`

//dsqllint:ignore DSQL003 // want `DSQL000 ignore-directive: this dsqllint:ignore has no reason`
const noReason = "UPDATE shards SET range_id = range_id + 1 WHERE shard_id = $2" // want `DSQL003`

//dsqllint:ignore DSQL999 -- typo // want `DSQL000 ignore-directive: this dsqllint:ignore names unknown rule DSQL999`
const unknownRule = "SELECT 1"

//dsqllint:ignore DSQL001 -- nothing to suppress // want `DSQL000 ignore-directive: this dsqllint:ignore DSQL001 suppresses nothing here`
const nothing = "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE"

//dsqllint:ignore DSQL001 -- wrong rule // want `DSQL000 ignore-directive: this dsqllint:ignore DSQL001 suppresses nothing`
const wrongRule = "UPDATE shards SET range_id = range_id + 1 WHERE shard_id = $3" // want `DSQL003`

// The compare-and-swap that makes range_id a fence.
const casShard = "UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3"
