-- sqlc query file: every query runs on its own.

-- name: GetAccountForUpdate :one
SELECT * FROM accounts WHERE id = @id FOR UPDATE;

-- name: ClaimJob :one
SELECT id, payload FROM jobs
WHERE status = 'pending'
ORDER BY run_at
LIMIT 1
FOR UPDATE SKIP LOCKED; -- want `DSQL006 lock-wait-policy: SKIP LOCKED skips nothing on Aurora DSQL`

-- name: LockAccounts :many
SELECT * FROM accounts
WHERE id = ANY(@ids::bigint[])
FOR UPDATE; -- want `DSQL008 lock-scope: FOR UPDATE whose WHERE pins no (row by key equality \(only IN\)|column of the primary key \(id\) of accounts)`

-- name: LockAccountWithOwner :one
SELECT a.* FROM accounts a JOIN owners o ON o.account_id = a.id
WHERE a.id = @id
FOR UPDATE; -- want `DSQL008 lock-scope: FOR UPDATE over a join of accounts, owners`

-- name: TakeLeadership :one
SELECT pg_try_advisory_lock(hashtext(sqlc.arg(name)::text)); -- want `DSQL007 explicit-lock: pg_try_advisory_lock is not supported`

-- name: PurgeSessions :exec
DELETE FROM sessions; -- want `DSQL109 row-limit: DELETE from sessions without WHERE`

-- name: ResetCounters :exec
TRUNCATE counters; -- want `DSQL105 unsupported-statement: TRUNCATE is not supported`

-- name: NotifyWorkers :exec
SELECT pg_notify('jobs', sqlc.arg(payload)::text); -- want `DSQL105 unsupported-statement: pg_notify\(\) is not supported`

-- name: ArchiveEvents :exec
INSERT INTO events_archive -- want `DSQL109 row-limit: INSERT ... SELECT from a table with no LIMIT`
SELECT * FROM events WHERE at < @before;

-- Negatives: what DSQL runs as written.
-- name: CreateAccount :one
INSERT INTO accounts (email) VALUES (@email)
ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email
RETURNING *;

-- name: ArchiveBatch :exec
INSERT INTO events_archive
SELECT * FROM events WHERE at < @before ORDER BY id LIMIT 1000;

-- name: AccountTotals :many
WITH recent AS (
    SELECT account_id, sum(amount) AS total FROM ledger WHERE at > @since GROUP BY account_id
)
SELECT a.email, r.total FROM accounts a JOIN recent r ON r.account_id = a.id;

-- name: DeleteSession :exec
DELETE FROM sessions WHERE id = @id;
