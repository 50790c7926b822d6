package unfenced

// The workflow store's queries (sqlc-style, ? placeholders).
const (
	updateWorkflowStatus = `UPDATE workflow_executions SET status = ?, error_message = COALESCE(?, error_message) WHERE id = ? AND namespace = ?` // want `DSQL003 unfenced-write: writes of workflow_executions check the lease in leases \(workflows.go:31\); this UPDATE changes status without that check`

	completeWorkflow = "UPDATE workflow_executions SET status = 'completed', completed_at = ?, output_data = COALESCE(?, output_data) WHERE id = ? AND namespace = ?" // want `DSQL003`

	sleepWorkflow = "UPDATE workflow_executions SET status = 'sleeping', sleep_until = ? WHERE id = ? AND namespace = ?" // want `DSQL003`

	// A sweep: the status it leaves is compared.
	resetOrphaned = `UPDATE workflow_executions SET status = 'pending' WHERE namespace = ? AND status = 'running' AND id NOT IN (SELECT resource_id FROM leases WHERE kind = 'workflow' AND namespace = ?)`

	// The scheduler looks due jobs up by their schedule: a filter, which
	// shows no writer racing for the rows.
	getDueCronJobs    = "SELECT * FROM cron_jobs WHERE namespace = ? AND enabled = ? AND next_run_at <= ?"
	updateCronLastRun = "UPDATE cron_jobs SET last_run_at = ?, next_run_at = ?, updated_at = ? WHERE id = ? AND namespace = ?"

	// Lease writes fenced by the owner, and a guarded bulk delete.
	heartbeatLease = "UPDATE leases SET heartbeat_at = ?, expires_at = ? WHERE resource_id = ? AND worker_id = ?"
	releaseLease   = "DELETE FROM leases WHERE resource_id = ? AND worker_id = ?"
	cleanupExpired = "DELETE FROM leases WHERE namespace = ? AND expires_at < ?"

	// Taking over a lease: fenced when it is expired or already ours.
	takeOverLease = "UPDATE leases SET worker_id = $1, expires_at = $2 WHERE resource_id = $3 AND (expires_at < now() OR worker_id = $1)"

	// Stealing a lease with no guard at all.
	stealLease = "UPDATE leases SET worker_id = $1 WHERE resource_id = $2" // want `DSQL003 unfenced-write: leases's rows are claimed: workflows.go:25 claims the row \(sets worker_id\); this UPDATE changes worker_id without checking the claim.* add .AND worker_id = \$3.`

	// The lease check the other writes of workflow_executions skip.
	startWorkflow = `UPDATE workflow_executions SET status = 'running' WHERE id = ? AND namespace = ? AND EXISTS (SELECT 1 FROM leases WHERE resource_id = ? AND worker_id = ?)`

	// A payload-only write of a data table stays quiet.
	saveStepOutput = "UPDATE workflow_steps SET output_data = ? WHERE namespace = ? AND execution_id = ? AND step_name = ?"

	// MySQL upsert whose coordination columns are guarded by CASE.
	acquireLeaseMySQL = `INSERT INTO leases (resource_id, kind, namespace, worker_id, acquired_at, expires_at, heartbeat_at)
VALUES (?, 'workflow', ?, ?, ?, ?, ?)
ON DUPLICATE KEY UPDATE
  worker_id = CASE WHEN expires_at <= ? THEN VALUES(worker_id) WHEN worker_id = VALUES(worker_id) THEN VALUES(worker_id) ELSE worker_id END,
  expires_at = CASE WHEN expires_at <= ? OR worker_id = VALUES(worker_id) THEN VALUES(expires_at) ELSE expires_at END`

	// An upsert that overwrites the owner unconditionally.
	acquireLeaseBlind = "INSERT INTO leases (resource_id, worker_id) VALUES ($1, $2) ON CONFLICT (resource_id) DO UPDATE SET worker_id = EXCLUDED.worker_id" // want `DSQL003 unfenced-write: leases's rows are claimed: .*; this upsert changes worker_id without checking the claim.* add .WHERE leases.worker_id = \$3. to DO UPDATE`
)

// The DNS-owner upsert: fenced by the orchestration id.
const createInstanceRecord = `INSERT INTO toygres_cms.instances
(user_name, k8s_name, namespace, postgres_version, storage_size_gb, use_load_balancer, dns_name, state, create_orchestration_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, 'creating', $8)
ON CONFLICT (k8s_name) DO UPDATE
SET user_name = EXCLUDED.user_name,
    dns_name = EXCLUDED.dns_name,
    updated_at = NOW()
WHERE toygres_cms.instances.create_orchestration_id = EXCLUDED.create_orchestration_id
RETURNING id`
