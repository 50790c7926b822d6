-- sqlc query file for the workflow store.

-- name: GetWorkflowForUpdate :one
SELECT id, status FROM workflow_executions
WHERE id = $1 AND namespace = $2
FOR NO KEY UPDATE; -- want `DSQL001 share-lock: FOR NO KEY UPDATE`

-- name: UpdateWorkflowStatus :exec
UPDATE workflow_executions
SET status = $1
WHERE id = $2 AND namespace = $3; -- want `DSQL003 unfenced-write: status is compare-and-set: queries.sql:14 compare-and-sets status; this UPDATE changes status by the row.s key without comparing it.* add .AND status = \$4.`

-- name: ClaimWorkflow :exec
UPDATE workflow_executions -- want `DSQL004 unchecked-cas: the compare-and-swap write ClaimWorkflow is annotated :exec`
SET status = 'running'
WHERE id = $1 AND namespace = $2 AND status = 'pending';

-- name: LockLeaseMySQL :one
SELECT * FROM leases WHERE resource_id = ? LOCK IN SHARE MODE; -- want `DSQL002`

-- name: ReadReplica :one
-- dsqllint:ignore DSQL001 -- served by a PostgreSQL read replica, never DSQL
SELECT * FROM leases WHERE resource_id = $1 FOR SHARE;

-- The words FOR SHARE in a comment, and 'FOR SHARE' in a string, are not SQL.
SELECT 'FOR SHARE' FROM leases WHERE resource_id = $1;
