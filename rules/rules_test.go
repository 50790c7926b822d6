package rules

import (
	"strings"
	"testing"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// check runs the catalogue over texts as if they were one package.
func check(texts ...string) []Finding { return checkWith(DefaultConfig(), texts...) }

// checkWith is check with a configuration.
func checkWith(cfg *Config, texts ...string) []Finding {
	fences := NewFences()
	var scripts []*sqlparse.Script
	for _, t := range texts {
		s := sqlparse.Parse(t)
		scripts = append(scripts, s)
		for _, st := range s.Stmts {
			fences.Learn(cfg, st)
		}
	}
	var out []Finding
	for _, s := range scripts {
		out = append(out, Check(&Context{Config: cfg, Style: s.Style, MaxParam: s.MaxParam, Fences: fences}, s)...)
	}
	return out
}

func ids(fs []Finding) string {
	var s []string
	for _, f := range fs {
		s = append(s, f.Rule.ID)
	}
	return strings.Join(s, ",")
}

func TestUnfencedWrite(t *testing.T) {
	report := []string{
		"UPDATE shards SET range_id = range_id + 1 WHERE shard_id = $1",
		"UPDATE workflow_executions SET status = ?, error_message = COALESCE(?, error_message) WHERE id = ? AND namespace = ?",
		"UPDATE workflow_executions SET status = 'sleeping', sleep_until = ? WHERE id = ? AND namespace = ?",
		"UPDATE cron_jobs SET last_run_at = ?, next_run_at = ?, updated_at = ? WHERE id = ? AND namespace = ?",
		"UPDATE task_queues SET range_id = :range_id, data = :data WHERE range_hash = :range_hash AND task_queue_id = :task_queue_id",
		"INSERT INTO leases (resource_id, worker_id) VALUES ($1, $2) ON CONFLICT (resource_id) DO UPDATE SET worker_id = EXCLUDED.worker_id",
		"UPDATE leases SET worker_id = $1 WHERE resource_id = $2 AND worker_id <> $1",
		"UPDATE leases SET worker_id = $1 WHERE resource_id = $2 AND EXISTS (SELECT 1 FROM shards WHERE range_id = $3)",
		// The CTE locks another table's rows, not the ones written.
		"WITH m AS (SELECT resource_id FROM leases WHERE resource_id = $1 FOR UPDATE) UPDATE workflow_executions SET status = 'running' FROM m WHERE workflow_executions.id = $1 AND workflow_executions.id = m.resource_id",
	}
	quiet := []string{
		"UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3",
		"UPDATE shards SET range_id = $1, updated_at = NOW() WHERE shard_id = $2 AND range_id = $3",
		"UPDATE namespace_metadata SET notification_version = $1 WHERE partition_id = $2 AND notification_version = $3",
		"UPDATE leases SET heartbeat_at = ?, expires_at = ? WHERE resource_id = ? AND worker_id = ?",
		"DELETE FROM leases WHERE resource_id = ? AND worker_id = ?",
		"DELETE FROM leases WHERE namespace = ? AND expires_at < ?",
		"UPDATE workflow_executions SET status = 'pending' WHERE namespace = ? AND status = 'running' AND id NOT IN (SELECT resource_id FROM leases WHERE kind = 'workflow')",
		"UPDATE workflow_steps SET output_data = $1 WHERE id = $2",
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
	// The store looks rows up by their state and schedule: they are state.
	const lookups = "SELECT id FROM workflow_executions WHERE status = 'pending' AND sleep_until <= ? AND next_run_at <= ?"
	for _, q := range report {
		if got := ids(check(q, lookups)); got != "DSQL003" {
			t.Errorf("want DSQL003 for %q, got %q", q, got)
		}
	}
	// The same lookups, so that a state column is no payload: what keeps a
	// quiet statement quiet is its own shape.
	for _, q := range quiet {
		if got := ids(check(q, lookups)); got != "" {
			t.Errorf("want no finding for %q, got %q: %v", q, got, check(q, lookups))
		}
	}
}

// Which columns fence a write is learned from what the statements write and
// compare, whatever the columns are called.
func TestUsageFences(t *testing.T) {
	const (
		claim     = "UPDATE items SET worker = $1, locked_until = $2 WHERE id = $3 AND worker IS NULL"
		heartbeat = "UPDATE items SET locked_until = $1 WHERE id = $2 AND worker = $3"
		complete  = "DELETE FROM items WHERE id = $1 AND worker = $2"
		payload   = "UPDATE items SET payload = $1 WHERE id = $2"
		evict     = "DELETE FROM items WHERE id = $1"
		steal     = "UPDATE items SET worker = $1 WHERE id = $2"
		due       = "SELECT id FROM items WHERE locked_until < now()"
	)
	if got := ids(check(claim, heartbeat, complete, payload, due)); got != "" {
		t.Errorf("an owner the claim sets and the heartbeat compares fences it: %q", got)
	}
	// Without the claim nothing writes worker: the heartbeat's compare of
	// it is a lookup, and locked_until, which the store looks rows up by,
	// is written unfenced.
	if got := ids(check(heartbeat, due)); got != "DSQL003" {
		t.Errorf("heartbeat with no claim: %q", got)
	}
	fs := check(claim, heartbeat, evict, steal)
	if ids(fs) != "DSQL003,DSQL003" || !strings.Contains(fs[0].Message, "DELETE from items has no compare-and-swap predicate, though other statements fence items on worker") ||
		!strings.Contains(fs[1].Message, "UPDATE of items sets worker with no compare-and-swap") {
		t.Errorf("key-only writes of a claimed table: %v", fs)
	}
	// Ruling a value out is no claim, and neither is a CAS of a column on
	// itself: neither makes items coordination state.
	for _, q := range []string{"UPDATE items SET worker = $1 WHERE id = $2 AND worker <> $1", "UPDATE items SET worker = $1 WHERE id = $2 AND worker = $3"} {
		if got := ids(check(q, evict)); got != "" {
			t.Errorf("%s: %q", q, got)
		}
	}

	// What real stores compare that is no claim: a foreign key they join
	// on and re-parent, a configuration flag a bulk cleanup filters on, a
	// time a sweep compares with now().
	for _, texts := range [][]string{
		{"UPDATE triggers SET parent_id = $1 WHERE parent_id = $2", "DELETE FROM triggers t USING versions v WHERE t.parent_id = v.id AND v.id = $1", "DELETE FROM triggers WHERE id = $1"},
		{"INSERT INTO queues (name, auto_deleted) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET auto_deleted = EXCLUDED.auto_deleted", "DELETE FROM queues WHERE last_active < $1 AND auto_deleted = true", "DELETE FROM queues WHERE name = $1"},
		{"UPDATE sweeps SET swept_at = now() WHERE id = $1", "UPDATE sweeps SET body = $2 WHERE id = $1 AND swept_at < now()", "DELETE FROM sweeps WHERE id = $1"},
	} {
		if got := ids(check(texts...)); got != "" {
			t.Errorf("%q: %q", texts, got)
		}
	}

	// A state name written by key and compared by nothing is payload: an
	// OAuth2 request's `state` parameter.
	const (
		save = "UPDATE auth_requests SET client_id = $1, state = $2, nonce = $3 WHERE id = $4"
		get  = "SELECT client_id, state, nonce FROM auth_requests WHERE id = $1"
	)
	if got := ids(check(save, get)); got != "" {
		t.Errorf("an OAuth2 state parameter: %q", got)
	}
	if got := ids(check(save, "SELECT id FROM auth_requests WHERE state = $1")); got != "DSQL003" {
		t.Errorf("a state the store looks rows up by: %q", got)
	}
	// A version name stays a fence even when only Go compares what was read.
	if got := ids(check("UPDATE docs SET version = $1 WHERE id = $2")); got != "DSQL003" {
		t.Errorf("version: %q", got)
	}
}

func TestLearnedFence(t *testing.T) {
	fenced := "UPDATE executions SET next_event_id = $1, data = $2 WHERE shard_id = $3 AND run_id = $4 AND next_event_id = $5"
	payload := "UPDATE executions SET data = $1 WHERE shard_id = $2 AND run_id = $3"
	if got := ids(check(payload)); got != "" {
		t.Errorf("payload-only write reported alone: %s", got)
	}
	fs := check(fenced, payload)
	if ids(fs) != "DSQL003" || !strings.Contains(fs[0].Message, "AND next_event_id = $4") {
		t.Errorf("learned fence: %v", fs)
	}
	// A rename compares the column it assigns: that fences the rename but
	// does not make users coordination state.
	if got := ids(check("UPDATE users SET username = 'admin' WHERE username = 'root'", "DELETE FROM users WHERE username = $1")); got != "" {
		t.Errorf("rename learned as a fence: %q", got)
	}
	schema := "CREATE TABLE docs (id uuid PRIMARY KEY, body text, version bigint NOT NULL)"
	if got := ids(check(schema, "UPDATE docs SET body = $1 WHERE id = $2")); got != "DSQL003" {
		t.Errorf("schema fence: got %q", got)
	}
}

func TestShareLockVersions(t *testing.T) {
	q := "SELECT id FROM t WHERE id = $1 FOR KEY SHARE"
	cfg := DefaultConfig()
	s := sqlparse.Parse(q)
	if got := ids(Check(&Context{Config: cfg}, s)); got != "" {
		t.Errorf("FOR KEY SHARE at %s: %s", cfg.Target, got)
	}
	cfg.Target = MustVersion("2026-01")
	if got := ids(Check(&Context{Config: cfg}, s)); got != "DSQL001" {
		t.Errorf("FOR KEY SHARE at 2026-01: %q", got)
	}
}

func TestMessages(t *testing.T) {
	fs := check("SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE", "SELECT * FROM t WHERE id = ? LOCK IN SHARE MODE")
	if len(fs) != 2 {
		t.Fatalf("got %v", fs)
	}
	if !strings.HasPrefix(fs[0].Message, "DSQL001 share-lock: FOR SHARE is not supported by Aurora DSQL") ||
		!strings.HasPrefix(fs[1].Message, "DSQL002 mysql-share-lock: ") {
		t.Errorf("messages: %q / %q", fs[0].Message, fs[1].Message)
	}
}

// A rule that panics on one statement is recorded; the others still report.
var panicky = register(&Rule{ID: "DSQL999", Name: "test-panic", check: func(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
	if strings.Contains(ctx.Text, "dsqllint_panic") {
		panic("boom")
	}
}})

func TestPanickingRuleIsContained(t *testing.T) {
	ctx := &Context{Config: DefaultConfig(), Fences: NewFences()}
	fs := Check(ctx, sqlparse.Parse("SELECT dsqllint_panic FROM shards WHERE shard_id = $1 FOR SHARE"))
	if ids(fs) != "DSQL001" {
		t.Errorf("other rules' findings: %q", ids(fs))
	}
	if len(ctx.Panics) != 1 || ctx.Panics[0].Rule != panicky || ctx.Panics[0].Value != "boom" || ctx.Panics[0].Span.Start != 0 {
		t.Errorf("panics: %+v", ctx.Panics)
	}
}

// A guard on the column the write sets is a compare-and-swap whose lost
// race matters for a state machine's claim, not for a rename, a flag or a
// soft-delete mark: no row changed means it is done already.
func TestCASWriteToggles(t *testing.T) {
	cfg := DefaultConfig()
	for q, want := range map[string]bool{
		"UPDATE jobs SET status = 'running' WHERE id = $1 AND status = 'pending'":   true,
		"UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3":     true,
		"UPDATE jobs SET paused = true WHERE id = $1 AND paused = false":            false,
		"UPDATE users SET name = $1 WHERE id = $2 AND name = $3":                    false,
		"UPDATE counters SET deleted_xid = $1 WHERE name = $2 AND deleted_xid = $3": false,
	} {
		if got := IsCASWrite(cfg, sqlparse.Parse(q).Stmts[0]); got != want {
			t.Errorf("IsCASWrite(%q) = %v, want %v", q, got, want)
		}
	}
}
