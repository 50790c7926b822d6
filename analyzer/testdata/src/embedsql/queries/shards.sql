-- name: ReadLockShard :one
SELECT range_id
FROM shards
WHERE shard_id = $1
FOR SHARE; -- want `DSQL001 share-lock: FOR SHARE`

-- name: WriteLockShard :one
SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE;

-- name: UpdateShardData :exec
-- Payload only: quiet, though shards is contended.
UPDATE shards SET data = $1
WHERE shard_id = $2;

-- name: SetShardRange :exec
UPDATE shards SET range_id = $1
WHERE shard_id = $2; -- want `DSQL003 unfenced-write: range_id is compare-and-set: shards.sql:20 .* add .AND range_id = \$3.`

-- name: UpdateShard :exec
UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3; -- want `DSQL004 unchecked-cas: the compare-and-swap write UpdateShard is annotated :exec`

-- name: UpdateShardCounted :execrows
UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3;
