package fixraw

// Clauses that span lines inside raw strings: the diagnostic sits inside the
// string, where no want comment can go, so TestFixRawMultiLine checks the
// positions and the golden file.
const lockExecution = `
	SELECT db_record_version, next_event_id
	FROM executions
	WHERE shard_id = $1 AND run_id = $2
	FOR NO KEY
	  UPDATE`

const lockShardMySQL = `
	select range_id from shards
	where shard_id = ?
	lock in
	share mode`
