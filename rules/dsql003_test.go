package rules

import (
	"strings"
	"testing"
)

// The statements that show the tables of TestUnfencedWrite contended: a
// compare-and-swap, a lock, a claim.
var contention = []string{
	"UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3",
	"SELECT status FROM workflow_executions WHERE id = $1 FOR UPDATE",
	"UPDATE cron_jobs SET next_run_at = $1 WHERE id = $2 AND next_run_at = $3",
	"UPDATE task_queues SET range_id = $1 WHERE range_hash = $2 AND task_queue_id = $3 AND range_id = $4",
	"UPDATE leases SET worker_id = $1, expires_at = $2 WHERE resource_id = $3 AND worker_id IS NULL",
}

func TestUnfencedWrite(t *testing.T) {
	report := []string{
		"UPDATE shards SET range_id = range_id + 1 WHERE shard_id = $1",
		"UPDATE workflow_executions SET status = ?, error_message = COALESCE(?, error_message) WHERE id = ? AND namespace = ?",
		"UPDATE workflow_executions SET status = 'sleeping', sleep_until = ? WHERE id = ? AND namespace = ?",
		"UPDATE cron_jobs SET last_run_at = ?, next_run_at = ?, updated_at = ? WHERE id = ? AND namespace = ?",
		"UPDATE task_queues SET range_id = :range_id, data = :data WHERE range_hash = :range_hash AND task_queue_id = :task_queue_id",
		"INSERT INTO leases (resource_id, worker_id) VALUES ($1, $2) ON CONFLICT (resource_id) DO UPDATE SET worker_id = EXCLUDED.worker_id",
		"DELETE FROM leases WHERE resource_id = $1",
		// Compared with the value written: it skips a write that changes
		// nothing, and takes the row from whoever holds it.
		"UPDATE leases SET worker_id = $1 WHERE resource_id = $2 AND worker_id <> $1",
		"UPDATE workflow_executions SET status = 'done' WHERE id = $1 AND status <> 'done'",
		"INSERT INTO leases (resource_id, worker_id) VALUES ($1, $2) ON CONFLICT (resource_id) DO UPDATE SET worker_id = EXCLUDED.worker_id WHERE leases.worker_id IS DISTINCT FROM EXCLUDED.worker_id",
		"UPDATE leases SET worker_id = $1 WHERE resource_id = $2 AND EXISTS (SELECT 1 FROM shards WHERE range_id = $3)",
		// The CTE locks another table's rows, not the ones written.
		"WITH m AS (SELECT resource_id FROM leases WHERE resource_id = $1 FOR UPDATE) UPDATE workflow_executions SET status = 'running' FROM m WHERE workflow_executions.id = $1 AND workflow_executions.id = m.resource_id",
	}
	quiet := []string{
		"UPDATE shards SET range_id = $1, updated_at = NOW() WHERE shard_id = $2 AND range_id = $3",
		"UPDATE namespace_metadata SET notification_version = $1 WHERE partition_id = $2 AND notification_version = $3",
		"UPDATE leases SET heartbeat_at = ?, expires_at = ? WHERE resource_id = ? AND worker_id = ?",
		"DELETE FROM leases WHERE resource_id = ? AND worker_id = ?",
		"DELETE FROM leases WHERE namespace = ? AND expires_at < ?",
		"UPDATE workflow_executions SET status = 'pending' WHERE namespace = ? AND status = 'running' AND id NOT IN (SELECT resource_id FROM leases WHERE kind = 'workflow')",
		"UPDATE workflow_executions SET status = 'cancelled' WHERE id = $1 AND status NOT IN ('done', 'failed')",
		"UPDATE workflow_steps SET output_data = $1 WHERE id = $2",
		// Payload only, on contended tables.
		"UPDATE shards SET data = $1 WHERE shard_id = $2",
		"UPDATE workflow_executions SET error_message = $1 WHERE id = $2",
		// The statement writes only the rows it locked itself.
		"WITH m AS (SELECT id FROM workflow_executions WHERE id = $1 AND status = 'pending' FOR UPDATE) UPDATE workflow_executions SET status = 'running' FROM m WHERE workflow_executions.id = $1 AND workflow_executions.id = m.id",
		"WITH m AS (SELECT id FROM workflow_executions WHERE status = 'pending' LIMIT 10 FOR UPDATE) UPDATE workflow_executions SET status = 'running' FROM m WHERE workflow_executions.id = m.id",
		"UPDATE workflow_executions SET status = 'running' WHERE id IN (SELECT id FROM workflow_executions WHERE status = 'pending' LIMIT 10 FOR UPDATE)",
		// A sweep: its WHERE picks the rows by what it reads, not by a key.
		"UPDATE workflow_executions SET status = 'failed', sleep_until = NULL WHERE (now() - sleep_until) > interval '1 day'",
		// A state machine in one statement: the CASE moves only from the
		// states it names.
		"UPDATE workflow_executions SET status = CASE status WHEN 'sleeping' THEN 'pending' ELSE status END WHERE id = ?",
		"UPDATE leases SET worker_id = $1, expires_at = $2 WHERE resource_id = $3 AND (expires_at < now() OR worker_id = $1)",
		"UPDATE jobs SET owner = $1 WHERE id = $2 AND owner IS NULL",
		`INSERT INTO toygres_cms.instances (k8s_name, dns_name, state, create_orchestration_id) VALUES ($1, $2, 'creating', $3)
ON CONFLICT (k8s_name) DO UPDATE SET dns_name = EXCLUDED.dns_name, updated_at = NOW()
WHERE toygres_cms.instances.create_orchestration_id = EXCLUDED.create_orchestration_id RETURNING id`,
		"INSERT INTO leases (resource_id, kind, worker_id, expires_at) VALUES (?, 'workflow', ?, ?) ON DUPLICATE KEY UPDATE worker_id = CASE WHEN expires_at <= ? THEN VALUES(worker_id) ELSE worker_id END, expires_at = CASE WHEN expires_at <= ? OR worker_id = VALUES(worker_id) THEN VALUES(expires_at) ELSE expires_at END",
		"UPDATE shards SET range_id = ? WHERE shard_id = ? IF range_id = ?", // CQL
		"update shards set range_id=%d where shard_id=%d please",
	}
	for _, q := range report {
		if got := ids(check(append([]string{q}, contention...)...)); got != "DSQL003" {
			t.Errorf("want DSQL003 for %q, got %q", q, got)
		}
		// Alone, nothing shows the table contended.
		if fs := check(q); len(fs) != 0 {
			t.Errorf("alone, want no finding for %q, got %v", q, fs[0].Message)
		}
	}
	for _, q := range quiet {
		if fs := check(append([]string{q}, contention...)...); len(fs) != 0 {
			t.Errorf("want no finding for %q, got %v", q, fs[0].Message)
		}
	}
}

// The message shows its evidence, and the fix names the column some
// statement already compare-and-sets.
func TestUnfencedWriteEvidence(t *testing.T) {
	for _, c := range []struct {
		texts []string
		want  []string
	}{
		{
			[]string{"UPDATE tasks SET status = $1, updated_at = $2 WHERE key = $3", "SELECT status FROM tasks WHERE key = $1 FOR UPDATE"},
			[]string{"tasks is contended: text2:1 locks it FOR UPDATE; this UPDATE changes status with no fence", "add `AND status = $4`"},
		},
		{
			[]string{"DELETE FROM kv WHERE partition = $1 AND key = $2", "UPDATE kv SET value = $3 WHERE partition = $1 AND key = $2 AND value = $4"},
			[]string{"kv is contended: text2:1 compare-and-sets value; this DELETE removes a row by its key with no fence", "add `AND value = $3`"},
		},
		{
			[]string{"INSERT INTO branches (repo, id, commit_id) VALUES ($1, $2, $3) ON CONFLICT (repo, id) DO UPDATE SET commit_id = $3",
				"UPDATE branches SET commit_id = $3 WHERE repo = $1 AND id = $2 AND commit_id = $4"},
			[]string{"branches is contended: text2:1 compare-and-sets commit_id; this upsert changes commit_id with no fence", "add `WHERE branches.commit_id = $4` to DO UPDATE"},
		},
		{
			// A version bump another statement compares.
			[]string{"UPDATE docs SET version = version + 1 WHERE id = $1", "UPDATE docs SET body = $1 WHERE id = $2 AND version = $3"},
			[]string{"docs is contended: text2:1 compares version beside the row's key; this UPDATE changes version with no fence"},
		},
		{
			// A claim with SKIP LOCKED: the state it filters on is contended.
			[]string{"UPDATE jobs SET state = 'available' WHERE id = $1", "SELECT * FROM jobs WHERE state = 'available' LIMIT 1 FOR UPDATE SKIP LOCKED"},
			[]string{"jobs is contended: text2:1 locks it FOR UPDATE SKIP LOCKED; this UPDATE changes state with no fence"},
		},
		{
			// No evidence either way: a version name the module compares.
			[]string{"UPDATE docs SET version = $1 WHERE id = $2", "SELECT id FROM docs WHERE version = $1"},
			[]string{"nothing in the module locks docs or compare-and-sets its columns, but version reads as a version or owner by its name", "(judged by name)"},
		},
	} {
		fs := unfenced(check(c.texts...))
		if len(fs) != 1 {
			t.Errorf("%q: want one finding, got %v", c.texts, fs)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(fs[0].Message, w) {
				t.Errorf("%q: message %q lacks %q", c.texts, fs[0].Message, w)
			}
		}
	}
}

// What is no evidence of contention: a compare with the value written, a
// filter, a rename, a column's name, and a comparison with a constant.
func TestNoContentionEvidence(t *testing.T) {
	for _, texts := range [][]string{
		// Skip if unchanged.
		{"INSERT INTO labels (repo_id, name, manifest_id) VALUES ($1, $2, $3) ON CONFLICT (repo_id, name) DO UPDATE SET manifest_id = EXCLUDED.manifest_id WHERE labels.manifest_id <> EXCLUDED.manifest_id",
			"DELETE FROM labels WHERE repo_id = $1 AND name = $2"},
		{"UPDATE items SET worker = $1 WHERE id = $2 AND worker <> $1", "DELETE FROM items WHERE id = $1"},
		// A version written once by a migrator, compared by nothing.
		{"INSERT INTO app_schema_version (edition, version) VALUES ($1, $2) ON CONFLICT (edition) DO UPDATE SET version = $2"},
		{"UPDATE docs SET version = $1 WHERE id = $2"},
		// A state the store looks rows up by, and writes by key: a filter.
		{"UPDATE auth_requests SET client_id = $1, state = $2, nonce = $3 WHERE id = $4", "SELECT id FROM auth_requests WHERE state = $1"},
		// An owner compared by a heartbeat that nothing assigns.
		{"UPDATE items SET locked_until = $1 WHERE id = $2 AND worker = $3", "SELECT id FROM items WHERE locked_until < now()"},
		// A rename compares the column it assigns, which is its only pin.
		{"UPDATE users SET username = 'admin' WHERE username = 'root'", "DELETE FROM users WHERE username = $1"},
		// A foreign key re-parented; a flag a bulk cleanup filters on; a
		// time a sweep compares with now(); a constant kind.
		{"UPDATE triggers SET parent_id = $1 WHERE parent_id = $2", "DELETE FROM triggers t USING versions v WHERE t.parent_id = v.id AND v.id = $1", "DELETE FROM triggers WHERE id = $1"},
		{"INSERT INTO queues (name, auto_deleted) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET auto_deleted = EXCLUDED.auto_deleted", "DELETE FROM queues WHERE last_active < $1 AND auto_deleted = true", "DELETE FROM queues WHERE name = $1"},
		{"UPDATE sweeps SET swept_at = now() WHERE id = $1", "UPDATE sweeps SET body = $2 WHERE id = $1 AND swept_at < now()", "DELETE FROM sweeps WHERE id = $1"},
		{"UPDATE contacts SET kind = 'blocked' WHERE id = $1", "UPDATE contacts SET note = $1 WHERE id = $2 AND kind = 'friend'"},
		// Rows locked to be deleted by the same statement.
		{"WITH d AS (SELECT id FROM entries WHERE status = $1 AND share_code = '' LIMIT 10 FOR UPDATE SKIP LOCKED) DELETE FROM entries USING d WHERE entries.id = d.id",
			"UPDATE entries SET share_code = $1 WHERE user_id = $2 AND id = $3"},
		{`WITH d AS (SELECT id, hash FROM entries WHERE status = $1 AND share_code = '' LIMIT 10 FOR UPDATE SKIP LOCKED),
  gone AS (DELETE FROM entries USING d WHERE entries.id = d.id RETURNING entries.hash)
INSERT INTO tombstones (hash) SELECT hash FROM gone ON CONFLICT (hash) DO NOTHING`,
			"UPDATE entries SET share_code = $1 WHERE user_id = $2 AND id = $3"},
		// Pins a full-row save rewrites: nothing tells key from guard.
		{"DELETE FROM enclosures WHERE user_id = $1 AND entry_id = $2",
			"UPDATE enclosures SET url = $1, size = $2, entry_id = $3, user_id = $4 WHERE id = $5"},
		// An append-only log whose last row is locked to number the next.
		{"SELECT message_id FROM queue WHERE queue_type = $1 ORDER BY message_id DESC LIMIT 1 FOR UPDATE", "DELETE FROM queue WHERE queue_type = $1 AND message_id = $2"},
		// A counter stepped on the row, beside a capacity check.
		{"UPDATE workers SET active_tasks = active_tasks + 1 WHERE name = $1 AND active_tasks < $2", "UPDATE workers SET active_tasks = active_tasks - 1 WHERE name = $1"},
		// A step of a column a lock protects but nobody compares.
		{"SELECT invocations FROM files WHERE id = $1 FOR UPDATE", "UPDATE files SET invocations = invocations + 1 WHERE id = $1"},
		// Tables named at run time: any two may differ.
		{"SELECT * FROM %s WHERE id = $1 FOR UPDATE", "UPDATE %s SET acked = true WHERE id = $1"},
		// A purge by another column than the contending statements pick
		// a row by: no row they race for.
		{"UPDATE events SET is_rejected = $1 WHERE event_nid = $2 AND is_rejected = $3", "DELETE FROM events WHERE room_nid = $1"},
		// A tenant's id compared to scope a write, written only by the
		// save of the whole row.
		{"UPDATE sources SET name = $1, type = $2, verifier = $3, project_id = $4, updated_at = now() WHERE id = $5",
			"UPDATE sources SET deleted_at = now() WHERE id = $1 AND project_id = $2", "UPDATE sources SET project_id = $1, name = $2, type = $3, verifier = $4, mask = $5 WHERE id = $6"},
		// An owner name a list filters on: no lease.
		{"UPDATE portal_links SET owner_id = $1 WHERE id = $2", "SELECT id FROM portal_links WHERE owner_id = $1"},
		// Rows in any of the states given: a sweep's filter.
		{"UPDATE endpoints SET status = $1 WHERE project_id = $2 AND status = ANY($3)", "UPDATE endpoints SET status = $1 WHERE id = $2"},
		// A flag toggled, a mark set once.
		{"UPDATE entity_data SET is_deleted = true WHERE id = $1 AND is_deleted = false", "UPDATE entity_data SET is_deleted = $2 WHERE id = $1"},
		{"UPDATE passkeys SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL", "DELETE FROM passkeys WHERE id = $1"},
		// An upsert's copy of its conflict key writes nothing.
		{"INSERT INTO packages (name, readme) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name", "DELETE FROM packages WHERE name = $1 AND readme = $2", "DELETE FROM packages WHERE readme = $1"},
	} {
		if fs := unfenced(check(texts...)); len(fs) != 0 {
			t.Errorf("%q: want no finding, got %v", texts, fs[0].Message)
		}
	}
}

// Evidence makes the table contended for the module's other writes.
func TestContendedByEvidence(t *testing.T) {
	const (
		claim     = "UPDATE items SET worker = $1, locked_until = $2 WHERE id = $3 AND worker IS NULL"
		heartbeat = "UPDATE items SET locked_until = $1 WHERE id = $2 AND worker = $3"
		complete  = "DELETE FROM items WHERE id = $1 AND worker = $2"
		payload   = "UPDATE items SET payload = $1 WHERE id = $2"
		evict     = "DELETE FROM items WHERE id = $1"
		steal     = "UPDATE items SET worker = $1 WHERE id = $2"
		setIf     = "UPDATE items SET worker = $1 WHERE id = $2 AND worker = $3"
	)
	if got := ids(check(claim, heartbeat, complete, payload)); got != "" {
		t.Errorf("an owner the claim sets and the heartbeat compares fences it: %q", got)
	}
	if got := ids(check(claim, heartbeat, evict, steal)); got != "DSQL003,DSQL003" {
		t.Errorf("key-only writes of a claimed table: %q", got)
	}
	// A set-if is a compare-and-swap: the key-only delete beside it is not fenced.
	if got := ids(check(setIf, evict)); got != "DSQL003" {
		t.Errorf("a key-only delete beside a set-if: %q", got)
	}
	// A schema's version column is no evidence; a payload-only write of a
	// table fenced on next_event_id is no finding, a write of it is.
	fenced := "UPDATE executions SET next_event_id = $1, data = $2 WHERE shard_id = $3 AND run_id = $4 AND next_event_id = $5"
	if got := ids(check(fenced, "UPDATE executions SET data = $1 WHERE shard_id = $2 AND run_id = $3")); got != "" {
		t.Errorf("payload-only write: %q", got)
	}
	if fs := check(fenced, "UPDATE executions SET next_event_id = $1 WHERE shard_id = $2 AND run_id = $3"); ids(fs) != "DSQL003" || !strings.Contains(fs[0].Message, "AND next_event_id = $4") {
		t.Errorf("learned fence: %v", fs)
	}
	if got := ids(check("CREATE TABLE docs (id uuid PRIMARY KEY, body text, version bigint NOT NULL)", "UPDATE docs SET body = $1 WHERE id = $2")); got != "" {
		t.Errorf("a version column in the schema: %q", got)
	}
}

// A guard that reads other rows of the table is no fence: write skew.
func TestWriteSkew(t *testing.T) {
	lastAdmin := "DELETE FROM members WHERE group_id = $1 AND user_id = $2 AND NOT (role = 0 AND (SELECT COUNT(*) FROM members WHERE group_id = $1 AND user_id <> $2 AND role = 0) = 0)"
	fs := check(lastAdmin)
	if ids(fs) != "DSQL003" || !strings.Contains(fs[0].Message, "guarded by a subquery over other rows of members") || !strings.Contains(fs[0].Message, "write skew") {
		t.Errorf("last-admin delete: %v", fs)
	}
	for _, q := range []string{
		// A subquery over another table; rows a subquery picks; a trim.
		"DELETE FROM members WHERE group_id = $1 AND user_id = $2 AND EXISTS (SELECT 1 FROM groups WHERE id = $1)",
		"DELETE FROM members WHERE id IN (SELECT id FROM members WHERE expired LIMIT 10)",
		"DELETE FROM transfer_tasks WHERE shard_id = $1 AND task_id IN (SELECT task_id FROM transfer_tasks WHERE shard_id = $1 AND task_id > $2 ORDER BY task_id LIMIT $3)",
		"UPDATE jobs SET state = 'running' WHERE queue = $1 AND id = (SELECT id FROM jobs WHERE queue = $1 AND state = 'available' LIMIT 1)",
		"DELETE FROM events WHERE stream = $1 AND seq < (SELECT max(seq) - 100 FROM events WHERE stream = $1)",
	} {
		if fs := check(q); len(fs) != 0 {
			t.Errorf("%s: want no finding, got %v", q, fs[0].Message)
		}
	}
}

// The schema tells the key: a key column is the row's name, never its
// state.
func TestUnfencedWriteWithSchema(t *testing.T) {
	cfg := withSchema()
	lock := "SELECT * FROM jobs WHERE status = 'ready' LIMIT 1 FOR UPDATE SKIP LOCKED"
	claim := "UPDATE jobs SET status = 'running' WHERE id = $1 AND status = 'ready'"
	for q, want := range map[string]string{
		"DELETE FROM jobs WHERE id = $1":                                                     "DSQL003",
		"DELETE FROM jobs WHERE id = ANY($1)":                                                "DSQL003",
		"UPDATE jobs SET status = 'running' WHERE id = $1":                                   "DSQL003",
		"UPDATE jobs SET next_run_at = $1 WHERE id = $2":                                     "DSQL003",
		"UPDATE jobs SET result = $1 WHERE id = $2":                                          "",
		"DELETE FROM jobs WHERE id = $1 AND status = 'done'":                                 "",
		"DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE status = 'done' LIMIT 100)": "",
	} {
		if got := ids(unfenced(checkWith(cfg, q, lock, claim))); got != want {
			t.Errorf("%s: got %q, want %q", q, got, want)
		}
	}
	// With the keys known, a transition of a queue's jobs pinned by the
	// queue alone is a sweep, no compare-and-swap of a row.
	if fs := unfenced(checkWith(cfg, "UPDATE jobs SET status = 'running' WHERE queue = $1 AND status = 'ready'", "UPDATE jobs SET status = $1 WHERE id = $2")); len(fs) != 0 {
		t.Errorf("a bulk transition as evidence: %v", fs)
	}
	// A `version text` is no version: locked rows or not, its write is
	// payload.
	if fs := unfenced(checkWith(cfg, "SELECT * FROM tokens WHERE id = $1 FOR UPDATE", "UPDATE tokens SET version = $1 WHERE id = $2")); len(fs) != 0 {
		t.Errorf("a version text: %v", fs)
	}
	// A rename of the primary key, compared beside another column.
	texts := []string{
		"UPDATE packages SET name = $1 WHERE name = $2",
		"DELETE FROM packages WHERE name = $1 AND readme = $2",
		"UPDATE packages SET readme = $1 WHERE name = $2 AND readme = $3",
		"DELETE FROM packages WHERE name = $1",
	}
	if fs := checkWith(cfg, texts...); ids(fs) != "DSQL003" || !strings.Contains(fs[0].Message, "compare-and-sets readme") {
		t.Errorf("a primary key learned as state: %v", fs)
	}
	// Picked by its unique key alone, dns_name is the row's other name.
	texts = []string{
		"UPDATE records SET dns_name = $1 WHERE id = $2",
		"UPDATE records SET etag = $1 WHERE dns_name = $2 AND id = $3",
	}
	if fs := checkWith(cfg, append(texts, "SELECT * FROM records WHERE dns_name = $1")...); len(fs) != 0 {
		t.Errorf("a unique key learned as state: %v", fs)
	}
}

// unfenced keeps DSQL003's findings.
func unfenced(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Rule == UnfencedWrite {
			out = append(out, f)
		}
	}
	return out
}

// Shapes real stores use that fence their own writes.
func TestFencedShapes(t *testing.T) {
	for _, texts := range [][]string{
		// A daily counter: reset when the day moves, else count up to a
		// limit; the compare of day decides the other changes.
		{`INSERT INTO counters (org_id, day, n) VALUES ($1, $2, 1) ON CONFLICT (org_id) DO UPDATE SET day = EXCLUDED.day,
  n = CASE WHEN counters.day = EXCLUDED.day THEN counters.n + 1 ELSE 1 END
  WHERE counters.day <> EXCLUDED.day OR counters.n < $3`},
		// A claim by token, released only by its holder: the token is
		// an owner the claim writes.
		{`INSERT INTO claims (user_id, token, expires_at) VALUES ($1, $2, $3) ON CONFLICT (user_id) DO UPDATE SET token = EXCLUDED.token,
  expires_at = EXCLUDED.expires_at WHERE claims.expires_at <= now()`,
			"DELETE FROM claims WHERE user_id = $1 AND token = $2"},
	} {
		if fs := unfenced(check(texts...)); len(fs) != 0 {
			t.Errorf("%q: want no finding, got %v", texts, fs[0].Message)
		}
	}
}
