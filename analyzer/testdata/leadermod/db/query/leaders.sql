-- name: ClaimLeader :execrows
UPDATE leaders SET leader_id = $1, expires_at = $2 WHERE name = $3 AND (expires_at < now() OR leader_id = $1);

-- name: RenewLeader :execrows
UPDATE leaders SET expires_at = $1 WHERE name = $2 AND leader_id = $3;

-- name: LockLeader :one
SELECT leader_id FROM leaders WHERE name = $1 FOR UPDATE;

-- A hand-over by key, after the lock of the same row in the same
-- transaction (elect.Handover): quiet.
-- name: SetLeader :exec
UPDATE leaders SET leader_id = $2, expires_at = $3 WHERE name = $1;

-- The same write with no lock first (elect.Force): it bypasses the claim.
-- name: ForceLeader :exec
UPDATE leaders SET leader_id = $2, expires_at = $3 WHERE name = $1 AND $1 <> ''; -- want `DSQL003 unfenced-write: leaders's rows are claimed: db/query/leaders.sql:2 claims the row`
