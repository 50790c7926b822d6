-- Lease queries, sqlc style.

-- name: ClaimLease :execrows
-- A worker takes a lease that is free or ran out.
UPDATE leases SET worker_id = $1, expires_at = $2
WHERE resource_id = $3 AND (worker_id IS NULL OR expires_at < now());

-- name: HeartbeatLease :execrows
UPDATE leases SET heartbeat_at = $1, expires_at = $2
WHERE resource_id = $3 AND worker_id = $4;

-- name: StealLease :exec
-- DSQL003: takes the lease whoever holds it, bypassing the claim.
UPDATE leases SET worker_id = $1, expires_at = $2
WHERE resource_id = $3;

-- name: CleanupExpiredLeases :exec
DELETE FROM leases WHERE namespace = $1 AND expires_at < $2;

-- name: ReadLease :one
-- DSQL001: a read lock DSQL rejects.
SELECT worker_id, expires_at FROM leases
WHERE resource_id = $1
FOR SHARE;
