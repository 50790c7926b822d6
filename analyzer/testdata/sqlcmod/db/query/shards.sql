-- name: ReadLockShard :one
SELECT range_id FROM shards
WHERE shard_id = $1
FOR SHARE; -- want `DSQL001 share-lock: FOR SHARE` `DSQL005 lock-without-retry: SELECT ... FOR SHARE \(FOR UPDATE once the share-lock fix`

-- name: UpdateShard :exec
UPDATE shards -- want `DSQL004 unchecked-cas: the compare-and-swap write UpdateShard is annotated :exec`
SET range_id = sqlc.arg(next_range_id)
WHERE shard_id = sqlc.arg(shard_id) AND range_id = sqlc.arg(range_id);

-- name: UpdateShardCounted :execrows
UPDATE shards SET range_id = @next_range_id WHERE shard_id = @shard_id AND range_id = @range_id;

-- name: DeleteShard :exec
-- A delete by key: nobody claims shards, and it wins over an edit by design.
DELETE FROM shards WHERE shard_id = $1;

-- name: SetShardData :exec
UPDATE shards SET data = @data WHERE shard_id = @shard_id AND data IS DISTINCT FROM @data;

-- name: LockShard :one
SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE; -- want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at worker.go:56`

-- name: PeekShard :one
SELECT range_id FROM shards WHERE shard_id = $1 AND range_id > 0 FOR UPDATE; -- want `DSQL005 lock-without-retry: this statement locks FOR UPDATE outside any transaction`

-- name: PeekShardRetried :one
SELECT range_id FROM shards WHERE shard_id = $1 AND range_id > 1 FOR UPDATE;
