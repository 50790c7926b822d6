-- name: ReadLockShard :one
SELECT range_id FROM shards
WHERE shard_id = $1
for share;

-- name: LockExecution :one
SELECT next_event_id FROM executions WHERE run_id = $1 FOR NO KEY
    UPDATE;

-- name: LockLeaseMySQL :one
SELECT * FROM leases WHERE resource_id = ? LOCK IN SHARE MODE;

-- name: SkipLocked :many
SELECT id FROM jobs WHERE id = $1 FOR SHARE SKIP LOCKED;

-- 'FOR SHARE' in a string and in this comment stay as they are.
SELECT 'FOR SHARE' FROM shards WHERE shard_id = $1 FOR UPDATE;
