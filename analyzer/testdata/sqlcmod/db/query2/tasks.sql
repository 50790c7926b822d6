-- name: LockShardRow :one
SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE; -- want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at worker.go:18`

-- name: LockShardRetried :one
SELECT range_id FROM shards WHERE shard_id = $1
FOR UPDATE;

-- name: LockShardOnPool :one
SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE; -- want `DSQL005 lock-without-retry: this statement locks FOR UPDATE outside any transaction`

-- name: LockShardOnPoolRetried :one
SELECT range_id FROM shards WHERE shard_id = $1 AND range_id >= 0 FOR UPDATE;
