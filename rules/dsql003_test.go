package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dsqllint/dsqllint/catalog"
	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// The statements that keep the fences of TestBypass: a version
// compare-and-swap, an owner claim with its holders, a lease another
// table's writes check, a SKIP LOCKED claim, a state machine.
var protocols = []string{
	"UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3",
	"UPDATE leases SET worker_id = $1, expires_at = $2 WHERE resource_id = $3 AND (worker_id IS NULL OR expires_at < now())",
	"UPDATE leases SET expires_at = $1 WHERE resource_id = $2 AND worker_id = $3",
	"UPDATE workflow_executions SET status = 'running', started_at = $1 WHERE id = $2 AND EXISTS (SELECT 1 FROM leases WHERE resource_id = $2 AND worker_id = $3 AND expires_at > now())",
	"SELECT * FROM workflow_executions WHERE namespace = $1 AND status = 'pending' AND sleep_until < $2",
	"WITH c AS (SELECT id FROM jobs WHERE state = 'available' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) UPDATE jobs SET state = 'running', worker = $1 FROM c WHERE jobs.id = c.id",
	"UPDATE jobs SET state = 'available' WHERE state = 'running' AND heartbeat < now() - interval '5 minutes'",
	"UPDATE tasks SET status = 'running' WHERE id = $1 AND status = 'pending'",
}

func TestBypass(t *testing.T) {
	report := map[string]string{
		// A version compare-and-set written blind.
		"UPDATE shards SET range_id = range_id + 1 WHERE shard_id = $1": "range_id is compare-and-set: text1:1 compare-and-sets range_id; this UPDATE changes range_id by the row's key without comparing it",
		"UPDATE shards SET range_id = $1 WHERE shard_id = $2":           "add `AND range_id = $3`",
		// A claimed row's owner and lease, written without the claim.
		"UPDATE leases SET worker_id = $1 WHERE resource_id = $2":                                                                            "leases's rows are claimed: text2:1 claims the row",
		"UPDATE leases SET expires_at = $1 WHERE resource_id = $2":                                                                           "changes expires_at without checking the claim",
		"DELETE FROM leases WHERE resource_id = $1":                                                                                          "deletes a claimed row by its key",
		"UPDATE leases SET worker_id = $1 WHERE resource_id = $2 AND worker_id <> $1":                                                        "add `AND worker_id = $3`",
		"INSERT INTO leases (resource_id, worker_id) VALUES ($1, $2) ON CONFLICT (resource_id) DO UPDATE SET worker_id = EXCLUDED.worker_id": "add `WHERE leases.worker_id = $3` to DO UPDATE",
		// The lease another table's writes check, skipped (seed 004).
		"UPDATE workflow_executions SET status = 'sleeping', sleep_until = $1 WHERE id = $2 AND namespace = $3": "writes of workflow_executions check the lease in leases (text4:1); this UPDATE changes status without that check",
		"UPDATE workflow_executions SET status = $1, error = COALESCE($2, error) WHERE id = $3":                 "lock the lease row FOR UPDATE in the same transaction",
		// A SKIP LOCKED claim's state written by key, and its row deleted.
		"UPDATE jobs SET state = 'done' WHERE id = $1": "jobs's rows are claimed: text6:1 claims its rows FOR UPDATE SKIP LOCKED; this UPDATE changes state without checking the claim",
		"DELETE FROM jobs WHERE id = $1":               "deletes a claimed row by its key",
		// A state machine's state written blind.
		"UPDATE tasks SET status = 'failed' WHERE id = $1": "status is compare-and-set: text8:1 compare-and-sets status",
	}
	quiet := []string{
		"UPDATE shards SET range_id = $1, updated_at = now() WHERE shard_id = $2 AND range_id = $3",
		"UPDATE shards SET data = $1 WHERE shard_id = $2",
		// A delete of a row nobody claims wins over an edit by design.
		"DELETE FROM shards WHERE shard_id = $1",
		"UPDATE leases SET expires_at = $1 WHERE resource_id = $2 AND worker_id = $3",
		"DELETE FROM leases WHERE resource_id = $1 AND worker_id = $2",
		"DELETE FROM leases WHERE expires_at < $1",
		"UPDATE leases SET worker_id = $1, expires_at = $2 WHERE resource_id = $3 AND expires_at < now()",
		"UPDATE workflow_executions SET status = 'completed' WHERE id = $1 AND EXISTS (SELECT 1 FROM leases WHERE resource_id = $1 AND worker_id = $2)",
		"UPDATE workflow_executions SET output = $1 WHERE id = $2",
		"UPDATE workflow_executions SET status = 'pending' WHERE status = 'running' AND id NOT IN (SELECT resource_id FROM leases)",
		"UPDATE jobs SET state = 'done' WHERE id = $1 AND state = 'running'",
		"UPDATE jobs SET state = 'done' WHERE id = $1 AND worker = $2",
		"UPDATE jobs SET payload = $1 WHERE id = $2",
		"DELETE FROM jobs WHERE state = 'done' AND finished_at < $1",
		"UPDATE tasks SET status = 'cancelled' WHERE id = $1 AND status NOT IN ('done', 'failed')",
		"UPDATE tasks SET status = CASE status WHEN 'sleeping' THEN 'pending' ELSE status END WHERE id = $1",
		"UPDATE tasks SET output = $1 WHERE id = $2",
		// The statement writes only the rows it locked itself.
		"WITH m AS (SELECT id FROM tasks WHERE id = $1 AND status = 'pending' FOR UPDATE) UPDATE tasks SET status = 'running' FROM m WHERE tasks.id = m.id",
		// Tables no statement fences, whatever their columns are called.
		"UPDATE users SET status = $1 WHERE id = $2",
		"UPDATE users SET version = version + 1, worker_id = $1 WHERE id = $2",
		"DELETE FROM users WHERE id = $1",
		"UPDATE %s SET range_id = $1 WHERE id = $2",
		"UPDATE shards SET range_id = ? WHERE shard_id = ? IF range_id = ?", // CQL
		"update shards set range_id=%d where shard_id=%d please",
	}
	for q, want := range report {
		fs := unfenced(check(append(protocols, q)...))
		if len(fs) != 1 || !strings.Contains(fs[0].Message, want) {
			t.Errorf("%s: want one finding with %q, got %v", q, want, fs)
		}
		// Alone, nothing shows a fence.
		if fs := unfenced(check(q)); len(fs) != 0 {
			t.Errorf("alone, want no finding for %q, got %v", q, fs[0].Message)
		}
	}
	for _, q := range quiet {
		if fs := unfenced(check(append(protocols, q)...)); len(fs) != 0 {
			t.Errorf("want no finding for %q, got %v", q, fs[0].Message)
		}
	}
	// A SKIP LOCKED claim in two statements: the lock picks ready rows, an
	// UPDATE moves them to running; a completion by key bypasses it.
	twoStep := []string{"SELECT id FROM builds WHERE state = 'ready' LIMIT 1 FOR UPDATE SKIP LOCKED", "UPDATE builds SET state = 'running' WHERE id = ANY($1)"}
	if fs := unfenced(check(append(twoStep, "UPDATE builds SET state = 'done' WHERE id = $1")...)); len(fs) != 2 ||
		!strings.Contains(fs[1].Message, "builds's rows are claimed: text1:1 claims its rows FOR UPDATE SKIP LOCKED; this UPDATE changes state") {
		t.Errorf("a two-statement SKIP LOCKED claim (its own UPDATE runs after the lock, which only a transaction shows): %v", fs)
	}
	// The protocol statements themselves follow their protocols.
	if fs := unfenced(check(protocols...)); len(fs) != 0 {
		t.Errorf("the protocols: %v", fs)
	}
}

// What is no fence: a compare with the value written, a filter, a rename,
// a column's name, a flag, a mark set once, an IS NOT NULL test, a
// tenant's id, a key.
func TestNoFence(t *testing.T) {
	for _, texts := range [][]string{
		// Skip if unchanged.
		{"INSERT INTO labels (repo_id, name, manifest_id) VALUES ($1, $2, $3) ON CONFLICT (repo_id, name) DO UPDATE SET manifest_id = EXCLUDED.manifest_id WHERE labels.manifest_id <> EXCLUDED.manifest_id",
			"UPDATE labels SET manifest_id = $1 WHERE repo_id = $2 AND name = $3"},
		{"UPDATE items SET worker = $1 WHERE id = $2 AND worker <> $1", "UPDATE items SET worker = $1 WHERE id = $2"},
		// A version written once by a migrator, compared by nothing.
		{"INSERT INTO app_schema_version (edition, version) VALUES ($1, $2) ON CONFLICT (edition) DO UPDATE SET version = $2"},
		// An IS NOT NULL test is a state check, not a compare-and-swap;
		// the email of a row is then written by key.
		{"UPDATE users SET email = $2 WHERE id = $1 AND email IS NOT NULL", "UPDATE users SET email = $2 WHERE id = $1"},
		// An owner compared by a heartbeat that no claim sets.
		{"UPDATE items SET locked_until = $1 WHERE id = $2 AND worker = $3", "UPDATE items SET locked_until = $1 WHERE id = $2"},
		// A tenant's id scoping a write is no owner: nothing claims it.
		{"UPDATE docs SET title = $1 WHERE id = $2 AND tenant_id = $3", "UPDATE docs SET title = $1 WHERE id = $2", "DELETE FROM docs WHERE id = $1"},
		// A rename compares the column it assigns, which is its only pin.
		{"UPDATE users SET username = 'admin' WHERE username = 'root'", "UPDATE users SET username = $1 WHERE id = $2"},
		// A flag toggled, and compared beside the key as a filter.
		{"UPDATE collection_shares SET is_deleted = true WHERE id = $1 AND is_deleted = false",
			"UPDATE collection_shares SET role = $1 WHERE id = $2 AND is_deleted = $3", "UPDATE collection_shares SET is_deleted = $1 WHERE id = $2"},
		// A soft-delete mark set once, and compared beside the key.
		{"UPDATE passkeys SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL", "UPDATE passkeys SET name = $1 WHERE id = $2 AND deleted_at = $3",
			"UPDATE passkeys SET deleted_at = $1 WHERE id = $2", "DELETE FROM passkeys WHERE id = $1"},
		// A constant filter beside the key; a time a sweep compares.
		{"UPDATE contacts SET kind = 'blocked' WHERE id = $1", "UPDATE contacts SET note = $1 WHERE id = $2 AND kind = 'friend'"},
		{"UPDATE sweeps SET swept_at = now() WHERE id = $1", "UPDATE sweeps SET body = $2 WHERE id = $1 AND swept_at < now()", "DELETE FROM sweeps WHERE id = $1"},
		// A SKIP LOCKED lock taken as a mutex, moving no row to another
		// state, claims nothing.
		{"SELECT id FROM environment WHERE id = $1 FOR UPDATE SKIP LOCKED", "DELETE FROM environment WHERE id = $1", "UPDATE environment SET name = $1 WHERE id = $2"},
		// A FOR UPDATE lock is no fence DSQL loses: it conflicts at COMMIT.
		{"SELECT status FROM tasks WHERE key = $1 FOR UPDATE", "UPDATE tasks SET status = $1, updated_at = $2 WHERE key = $3"},
		{"SELECT message_id FROM queue WHERE queue_type = $1 ORDER BY message_id DESC LIMIT 1 FOR UPDATE", "DELETE FROM queue WHERE queue_type = $1 AND message_id = $2"},
		// A versioned entity deleted by key: the delete wins by design.
		{"UPDATE secrets SET data = $1, secret_version = secret_version + 1 WHERE id = $2 AND secret_version = $3", "DELETE FROM secrets WHERE id = $1"},
		// A counter stepped on the row, beside a capacity check.
		{"UPDATE workers SET active_tasks = active_tasks + 1 WHERE name = $1 AND active_tasks < $2", "UPDATE workers SET active_tasks = active_tasks - 1 WHERE name = $1"},
		// Rows in any of the states given: a sweep's filter.
		{"UPDATE endpoints SET status = $1 WHERE project_id = $2 AND status = ANY($3)", "UPDATE endpoints SET status = $1 WHERE id = $2"},
		// A purge by another column than the fence statements pick a row by.
		{"UPDATE events SET state = $1 WHERE event_nid = $2 AND state = 'new'", "DELETE FROM events WHERE room_nid = $1", "UPDATE events SET state = 'gone' WHERE room_nid = $1"},
		// An upsert's copy of its conflict key writes nothing.
		{"INSERT INTO packages (name, readme) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name", "DELETE FROM packages WHERE name = $1"},
		// Rows locked to be deleted by the same statement.
		{"WITH d AS (SELECT id FROM entries WHERE status = $1 LIMIT 10 FOR UPDATE SKIP LOCKED) DELETE FROM entries USING d WHERE entries.id = d.id",
			"UPDATE entries SET share_code = $1 WHERE user_id = $2 AND id = $3"},
	} {
		if fs := unfenced(check(texts...)); len(fs) != 0 {
			t.Errorf("%q: want no finding, got %v", texts, fs[0].Message)
		}
	}
}

// Shapes real stores use that follow their own fences.
func TestFencedShapes(t *testing.T) {
	for _, texts := range [][]string{
		// A daily counter: reset when the day moves, else count up to a
		// limit; the compare of day decides the other changes.
		{`INSERT INTO counters (org_id, day, n) VALUES ($1, $2, 1) ON CONFLICT (org_id) DO UPDATE SET day = EXCLUDED.day,
  n = CASE WHEN counters.day = EXCLUDED.day THEN counters.n + 1 ELSE 1 END
  WHERE counters.day <> EXCLUDED.day OR counters.n < $3`},
		// A claim by token, released only by its holder.
		{`INSERT INTO claims (user_id, token, expires_at) VALUES ($1, $2, $3) ON CONFLICT (user_id) DO UPDATE SET token = EXCLUDED.token,
  expires_at = EXCLUDED.expires_at WHERE claims.expires_at <= now()`,
			"DELETE FROM claims WHERE user_id = $1 AND token = $2"},
		// The seed's MySQL lease upsert: every assignment a CASE over the
		// row's lease, and its heartbeat and release by the holder.
		{"INSERT INTO leases (resource_id, kind, worker_id, expires_at) VALUES (?, 'workflow', ?, ?) ON DUPLICATE KEY UPDATE worker_id = CASE WHEN expires_at <= ? THEN VALUES(worker_id) ELSE worker_id END, expires_at = CASE WHEN expires_at <= ? OR worker_id = VALUES(worker_id) THEN VALUES(expires_at) ELSE expires_at END",
			"UPDATE leases SET heartbeat_at = ?, expires_at = ? WHERE resource_id = ? AND worker_id = ?", "DELETE FROM leases WHERE resource_id = ? AND worker_id = ?",
			"DELETE FROM leases WHERE namespace = ? AND expires_at < ?"},
	} {
		if fs := unfenced(check(texts...)); len(fs) != 0 {
			t.Errorf("%q: want no finding, got %v", texts, fs[0].Message)
		}
	}
}

// A guard that reads other rows of the table is no fence under snapshot
// isolation, unless a UNIQUE constraint holds what it checks.
func TestWriteSkew(t *testing.T) {
	lastAdmin := "DELETE FROM members WHERE group_id = $1 AND user_id = $2 AND NOT (role = 0 AND (SELECT COUNT(*) FROM members WHERE group_id = $1 AND user_id <> $2 AND role = 0) = 0)"
	fs := check(lastAdmin)
	if ids(fs) != "DSQL003" || !strings.Contains(fs[0].Message, "guarded by a subquery over the rows of members with the same group_id") ||
		!strings.Contains(fs[0].Message, "write skew") || !strings.Contains(fs[0].Message, "one row for that group_id") {
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
	// The guard a UNIQUE constraint enforces: quiet; its twin without
	// the constraint: write skew.
	cfg := DefaultConfig()
	cat := catalog.New()
	cat.Apply("schema.sql", sqlparse.Parse("CREATE TABLE users (id uuid PRIMARY KEY, sso_id text UNIQUE, nick text)"))
	cfg.Schema = cat
	sso := "UPDATE users SET sso_id = $2 WHERE id = $1 AND NOT EXISTS (SELECT id FROM users WHERE sso_id = $2 AND id <> $1)"
	nick := "UPDATE users SET nick = $2 WHERE id = $1 AND NOT EXISTS (SELECT id FROM users WHERE nick = $2 AND id <> $1)"
	if fs := unfenced(checkWith(cfg, sso)); len(fs) != 0 {
		t.Errorf("a guard a UNIQUE constraint enforces: %v", fs[0].Message)
	}
	if fs := unfenced(checkWith(cfg, nick)); len(fs) != 1 || !strings.Contains(fs[0].Message, "the rows of users with the same nick") {
		t.Errorf("the same guard without the constraint: %v", fs)
	}
}

// The schema tells the keys: a compare-and-swap pins one, a column of a
// unique key a statement picks a row by is its name.
func TestBypassWithSchema(t *testing.T) {
	cfg := withSchema()
	claim := "UPDATE jobs SET status = 'running' WHERE id = $1 AND status = 'ready'"
	for q, want := range map[string]string{
		"UPDATE jobs SET status = 'done' WHERE id = $1":                                      "DSQL003",
		"UPDATE jobs SET status = 'done' WHERE id = ANY($1)":                                 "DSQL003",
		"UPDATE jobs SET result = $1 WHERE id = $2":                                          "",
		"DELETE FROM jobs WHERE id = $1":                                                     "",
		"UPDATE jobs SET status = 'done' WHERE id = $1 AND status = 'running'":               "",
		"DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE status = 'done' LIMIT 100)": "",
	} {
		if got := ids(unfenced(checkWith(cfg, q, claim))); got != want {
			t.Errorf("%s: got %q, want %q", q, got, want)
		}
	}
	// A transition of a queue's jobs pinned by the queue alone is a sweep,
	// no compare-and-swap of a row.
	if fs := unfenced(checkWith(cfg, "UPDATE jobs SET status = 'running' WHERE queue = $1 AND status = 'ready'", "UPDATE jobs SET status = $1 WHERE id = $2")); len(fs) != 0 {
		t.Errorf("a bulk transition as a fence: %v", fs)
	}
	// Picked by its unique key alone, dns_name is the row's other name.
	texts := []string{
		"UPDATE records SET dns_name = $1 WHERE id = $2",
		"UPDATE records SET etag = $1 WHERE dns_name = $2 AND id = $3 AND etag = $4",
		"SELECT * FROM records WHERE dns_name = $1",
	}
	if fs := unfenced(checkWith(cfg, texts...)); len(fs) != 0 {
		t.Errorf("a unique key learned as state: %v", fs)
	}
	// A time-typed column compared beside the key is no owner.
	texts = []string{
		"UPDATE leases SET expires_at = $1 WHERE id = $2 AND expires_at IS NULL",
		"UPDATE leases SET payload = $1 WHERE id = $2 AND expires_at = $3",
		"UPDATE leases SET expires_at = $1 WHERE id = $2",
	}
	if fs := unfenced(checkWith(cfg, texts...)); len(fs) != 0 {
		t.Errorf("a time as an owner: %v", fs)
	}
}

// The fences DSQL drops, each with its negative twin.
func TestDroppedFences(t *testing.T) {
	at := func(kind PriorKind, table string, cols ...string) TxView {
		p := Prior{Kind: kind, Table: table, Columns: cols, At: "store.go:10"}
		switch kind {
		case PriorAdvisory:
			p.What = "pg_advisory_xact_lock"
		case PriorShare:
			p.What = "FOR SHARE"
		}
		return TxView{Some: []Prior{p}}
	}
	for _, c := range []struct {
		name  string
		tx    TxView
		write string
		want  string // "" for no finding
	}{
		{"advisory lock", at(PriorAdvisory, ""), "UPDATE branches SET commit_id = $1 WHERE repo = $2 AND name = $3",
			"runs after pg_advisory_xact_lock at store.go:10 in the same transaction, which kept its writers apart on PostgreSQL; Aurora DSQL refuses advisory locks (DSQL007), so two writers now race; add `AND commit_id = $4`"},
		{"advisory lock, with the write's own compare-and-swap", at(PriorAdvisory, ""), "UPDATE branches SET commit_id = $1 WHERE repo = $2 AND name = $3 AND commit_id = $4", ""},
		{"advisory lock, a bulk write", at(PriorAdvisory, ""), "UPDATE schema_migrations SET version = $1, dirty = $2", ""},
		{"LOCK TABLE", at(PriorLockTable, "accounts"), "UPDATE accounts SET balance = $1 WHERE id = $2", "runs after LOCK TABLE accounts at store.go:10"},
		{"LOCK TABLE, with a compare-and-swap", at(PriorLockTable, "accounts"), "UPDATE accounts SET balance = $1 WHERE id = $2 AND balance = $3", ""},
		{"share-lock tokens, another table", at(PriorShare, "shards", "range_id"), "UPDATE executions SET data = $1 WHERE shard_id = $2 AND run_id = $3",
			"runs in the transaction that read shards.range_id FOR SHARE at store.go:10, the fence token it relies on"},
		{"share-lock tokens compared", at(PriorShare, "shards", "range_id"), "UPDATE shards SET owner = $1 WHERE shard_id = $2 AND range_id = $3", ""},
		{"share lock of no token", at(PriorShare, "shards"), "UPDATE executions SET data = $1 WHERE shard_id = $2", ""},
		{"serializable guard", TxView{Some: []Prior{{Kind: PriorSerializable, At: "store.go:8"}, {Kind: PriorRead, Table: "members", Keys: []string{"group_id"}, At: "store.go:9"}}},
			"DELETE FROM members WHERE group_id = $1 AND user_id = $2", "in a transaction set SERIALIZABLE at store.go:8"},
		{"serializable, a read of the row itself", TxView{Some: []Prior{{Kind: PriorSerializable, At: "store.go:8"}, {Kind: PriorRead, Table: "members", Keys: []string{"group_id", "user_id"}, At: "store.go:9"}}},
			"DELETE FROM members WHERE group_id = $1 AND user_id = $2", ""},
		{"serializable without a guard", TxView{Some: []Prior{{Kind: PriorSerializable, At: "store.go:8"}}}, "DELETE FROM members WHERE group_id = $1 AND user_id = $2", ""},
		{"advisory lock, the row locked first", TxView{Some: at(PriorAdvisory, "").Some, Every: []Prior{{Kind: PriorLock, Table: "branches", Keys: []string{"repo", "name"}}}},
			"UPDATE branches SET commit_id = $1 WHERE repo = $2 AND name = $3", ""},
	} {
		s := sqlparse.Parse(c.write)
		var fs []Finding
		for _, f := range Check(&Context{Config: DefaultConfig(), Style: s.Style, MaxParam: s.MaxParam, Fences: fencing.NewFences(), Tx: func(int) TxView { return c.tx }}, s) {
			if f.Rule == UnfencedWrite {
				fs = append(fs, f)
			}
		}
		switch {
		case c.want == "" && len(fs) != 0:
			t.Errorf("%s: want no finding, got %v", c.name, fs[0].Message)
		case c.want != "" && (len(fs) != 1 || !strings.Contains(fs[0].Message, c.want)):
			t.Errorf("%s: want a finding with %q, got %v", c.name, c.want, fs)
		}
	}
}

// Rows a queue claims with advisory locks: a write by key no longer runs
// only for the claim's holder.
func TestAdvisoryClaim(t *testing.T) {
	claim := "SELECT job_id FROM que_jobs WHERE queue = $1 AND run_at <= now() AND pg_try_advisory_lock(job_id) LIMIT 1"
	fs := unfenced(check(claim, "DELETE FROM que_jobs WHERE queue = $1 AND priority = $2 AND run_at = $3 AND job_id = $4"))
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "que_jobs") || !strings.Contains(fs[0].Message, "claims its rows with pg_try_advisory_lock") {
		t.Errorf("a delete of a claimed job: %v", fs)
	}
	if fs := unfenced(check("DELETE FROM que_jobs WHERE queue = $1 AND priority = $2 AND run_at = $3 AND job_id = $4")); len(fs) != 0 {
		t.Errorf("without the claim: %v", fs)
	}
}

// A trigger's check is a fence DSQL drops: the write needs it in its
// WHERE, or, for a version it bumped, in its SET.
func TestTriggerFences(t *testing.T) {
	cfg := DefaultConfig()
	cat := catalog.New()
	cat.Apply("db/schema.sql", sqlparse.Parse(`CREATE TABLE links (id uuid PRIMARY KEY, active_range text, closed_reason text, note text);
CREATE TABLE docs (id uuid PRIMARY KEY, body text, version bigint NOT NULL DEFAULT 1);
CREATE FUNCTION refuse_closed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.closed_reason IS NOT NULL THEN
    RAISE EXCEPTION 'link % is closed', OLD.id;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER links_closed BEFORE UPDATE OF active_range ON links FOR EACH ROW EXECUTE FUNCTION refuse_closed();
CREATE FUNCTION bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := OLD.version + 1;
  RETURN NEW;
END $$;
CREATE TRIGGER docs_version BEFORE UPDATE ON docs FOR EACH ROW EXECUTE FUNCTION bump_version();`))
	cfg.Schema = cat
	reopen := "UPDATE links SET active_range = tstzrange(now(), 'infinity') WHERE id = $1"
	fs := unfenced(checkWith(cfg, reopen))
	want := "links has trigger links_closed (db/schema.sql:10), whose function refuse_closed (db/schema.sql:6) refused this UPDATE when OLD.closed_reason IS NOT NULL; " +
		"Aurora DSQL has no triggers (DSQL105), so the write now goes through: add `AND closed_reason IS NULL`"
	if len(fs) != 1 || !strings.Contains(fs[0].Message, want) {
		t.Errorf("a write the trigger refused: %v", fs)
	}
	for _, q := range []string{
		reopen + " AND closed_reason IS NULL",                            // the check in its WHERE
		"UPDATE links SET note = $1 WHERE id = $2",                       // a column the trigger does not watch
		"UPDATE docs SET body = $1, version = version + 1 WHERE id = $2", // the bump in its SET
		"UPDATE docs SET body = $1 WHERE id = $2",                        // no statement compares the version
	} {
		if fs := unfenced(checkWith(cfg, q)); len(fs) != 0 {
			t.Errorf("%s: want no finding, got %v", q, fs[0].Message)
		}
	}
	// A version the trigger bumps and a compare-and-swap compares: the
	// compare-and-swap itself no longer moves it either.
	fs = unfenced(checkWith(cfg, "UPDATE docs SET body = $1 WHERE id = $2", "UPDATE docs SET body = $1 WHERE id = $2 AND version = $3"))
	if len(fs) != 2 || !strings.Contains(fs[0].Message, "add `version = version + 1` to its SET") || !strings.Contains(fs[0].Message, "bump_version (db/schema.sql:13)") {
		t.Errorf("a version the trigger bumped: %v", fs)
	}
}

// What .dsqllint.yaml declares stands for what the code cannot show.
func TestCoordinationDeclared(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Coordination = []fencing.Coordination{{Table: "schedules", Owner: []string{"leader"}, State: []string{"next_run"}, Why: "a Redis mutex", Where: ".dsqllint.yaml:3"}}
	fs := unfenced(checkWith(cfg, "UPDATE schedules SET next_run = $1 WHERE id = $2"))
	if len(fs) != 1 || !strings.Contains(fs[0].Message, ".dsqllint.yaml:3 declares it coordinated (a Redis mutex)") || !strings.Contains(fs[0].Message, "AND leader = $3") {
		t.Errorf("a declared table: %v", fs)
	}
	for _, q := range []string{"UPDATE schedules SET next_run = $1 WHERE id = $2 AND leader = $3", "UPDATE schedules SET note = $1 WHERE id = $2"} {
		if fs := unfenced(checkWith(cfg, q)); len(fs) != 0 {
			t.Errorf("%s: %v", q, fs[0].Message)
		}
	}
	if fs := unfenced(check("UPDATE schedules SET next_run = $1 WHERE id = $2")); len(fs) != 0 {
		t.Errorf("undeclared: %v", fs)
	}
}

// -why hears why a write is quiet, naming the fences looked for.
func TestQuietReasons(t *testing.T) {
	for q, want := range map[string]string{
		"UPDATE users SET status = $1 WHERE id = $2":      "no fence found: no statement of the module claims users's rows",
		"UPDATE shards SET data = $1 WHERE shard_id = $2": "payload only: it changes data; shards's fences protect range_id",
		"DELETE FROM shards WHERE shard_id = $1":          "a delete of a row nobody claims",
	} {
		var why []string
		texts := append([]string{protocols[0]}, q)
		fences := fencing.NewFences()
		for i, text := range texts {
			for _, st := range sqlparse.Parse(text).Stmts {
				fences.Learn(&DefaultConfig().Known, st, fmt.Sprintf("text%d:1", i+1))
			}
		}
		s := sqlparse.Parse(q)
		Check(&Context{Config: DefaultConfig(), Fences: fences, Only: UnfencedWrite, Quiet: func(_ sqlparse.Span, w string) { why = append(why, w) }}, s)
		if len(why) != 1 || !strings.Contains(why[0], want) {
			t.Errorf("%s: heard %q, want %q", q, why, want)
		}
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

// A FOR SHARE's token kept on another row is lost whatever lock the
// written row has; locking the token's row keeps it.
func TestShareTokenAcrossRows(t *testing.T) {
	share := Prior{Kind: PriorShare, Table: "shards", Keys: []string{"shard_id"}, Columns: []string{"range_id"}, What: "FOR SHARE", At: "shard.go:79"}
	rowLock := Prior{Kind: PriorLock, Table: "executions", Keys: []string{"shard_id", "run_id"}}
	shardLock := Prior{Kind: PriorLock, Table: "shards", Keys: []string{"shard_id"}}
	write := "UPDATE executions SET next_event_id = $1 WHERE shard_id = $2 AND run_id = $3"
	for _, c := range []struct {
		name string
		tx   TxView
		want bool
	}{
		{"the execution locked, the shard only shared", TxView{Some: []Prior{share, rowLock}, Every: []Prior{share, rowLock}}, true},
		{"the shard locked FOR UPDATE too", TxView{Some: []Prior{share, shardLock}, Every: []Prior{share, shardLock}}, false},
	} {
		s := sqlparse.Parse(write)
		fs := unfenced(Check(&Context{Config: DefaultConfig(), Fences: fencing.NewFences(), Tx: func(int) TxView { return c.tx }}, s))
		if got := len(fs) == 1; got != c.want {
			t.Errorf("%s: reported %v, want %v (%v)", c.name, got, c.want, fs)
		}
	}
}

// The shapes the review of earlier findings showed wrong, each quiet now.
func TestFenceShapesFromReview(t *testing.T) {
	for _, texts := range [][]string{
		// A state guard written as NOT (... = ANY(...)) in DO UPDATE.
		{"UPDATE families SET status = 'ACCEPTED' WHERE id = $1 AND status = 'INVITED'",
			"INSERT INTO families (id, member, status) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET status = $3 WHERE NOT (families.status = ANY($4))"},
		// One CASE among plain assignments computes a value: no claim.
		{"INSERT INTO file_data (file_id, latest_bucket) VALUES ($1, $2) ON CONFLICT (file_id) DO UPDATE SET latest_bucket = EXCLUDED.latest_bucket, delete_from = CASE WHEN file_data.latest_bucket != EXCLUDED.latest_bucket THEN file_data.latest_bucket END",
			"DELETE FROM file_data WHERE file_id = $1 AND latest_bucket = $2", "UPDATE file_data SET latest_bucket = $1 WHERE file_id = $2"},
		// A claim that sets a state constant makes no owner of it.
		{"WITH c AS (SELECT id FROM runs WHERE status = 'queued' LIMIT 1 FOR UPDATE SKIP LOCKED) UPDATE runs SET status = 'running' FROM c WHERE runs.id = c.id",
			"UPDATE runs SET note = $1 WHERE id = $2 AND status = $3",
			"INSERT INTO runs (id, status) VALUES ($1, 'queued') ON CONFLICT (id) DO UPDATE SET status = 'queued' WHERE runs.status <> 'running' OR (runs.status = 'running' AND runs.queue = 'retry')"},
		// A delete that checks the row's state deletes no claimed row.
		{"UPDATE attachments SET locked_till = $1, worker = $2 WHERE id = $3 AND locked_till < now()", "UPDATE attachments SET done = true WHERE id = $1 AND worker = $2",
			"DELETE FROM attachments WHERE id = $1 AND is_deleted = TRUE AND buckets = '{}'"},
		// A transition of a project's endpoints is a sweep, not a row's
		// compare-and-swap: the edits pick an endpoint by id and project.
		{"UPDATE endpoints SET status = 'active' WHERE project_id = $1 AND status = ANY($2)",
			"UPDATE endpoints SET name = $1, status = $2 WHERE id = $3 AND project_id = $4"},
		// A timestamp every write refreshes is nobody's state.
		{"WITH c AS (SELECT id FROM jobs WHERE state = 'ready' LIMIT 1 FOR UPDATE SKIP LOCKED) UPDATE jobs SET state = 'running', owner = $1, updated_at = now() FROM c WHERE jobs.id = c.id",
			"UPDATE jobs SET payload = $1, updated_at = now() WHERE id = $2", "UPDATE jobs SET note = $1, updated_at = now() WHERE id = $2",
			"SELECT id FROM jobs WHERE updated_at < $1"},
		// Rows a SKIP LOCKED batch only marks have no holder once its
		// transaction ends: a purge of marked rows by key takes no claim.
		{"SELECT id FROM item WHERE type IN ($1, $2) AND to_delete = false AND created > $3 ORDER BY created LIMIT $4 FOR UPDATE SKIP LOCKED",
			"UPDATE item SET to_delete = true WHERE id = ANY($1)", "DELETE FROM item WHERE id = ANY($1)"},
		// A SKIP LOCKED lock taken as a try-lock, by key, moves no state.
		{"SELECT * FROM item WHERE id = $1 FOR UPDATE SKIP LOCKED", "UPDATE item SET status = 'done' WHERE id = $1 AND status = 'new'", "DELETE FROM item WHERE id = ANY($1)"},
	} {
		if fs := unfenced(check(texts...)); len(fs) != 0 {
			t.Errorf("%q: want no finding, got %v", texts, fs[0].Message)
		}
	}
	// The twins: the state guard missing, the claim's state written by key.
	if fs := unfenced(check("UPDATE families SET status = 'ACCEPTED' WHERE id = $1 AND status = 'INVITED'",
		"INSERT INTO families (id, member, status) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET status = $3")); len(fs) != 1 {
		t.Errorf("an upsert of the state with no guard: %v", fs)
	}
	// The due time a scheduler picks rows by, which the lease holder
	// moves, moved without the lease; the schedule's text is no state.
	cron := []string{"SELECT * FROM cron_jobs WHERE enabled = true AND next_run_at <= $1",
		"UPDATE cron_jobs SET last_run_at = $1, next_run_at = $2 WHERE id = $3 AND EXISTS (SELECT 1 FROM leases WHERE resource_id = $3 AND worker_id = $4 AND expires_at > $5)"}
	if fs := unfenced(check(append(cron, "UPDATE cron_jobs SET last_run_at = $1, next_run_at = $2 WHERE id = $3")...)); len(fs) != 1 || !strings.Contains(fs[0].Message, "changes next_run_at without that check") {
		t.Errorf("a due time moved without the lease: %v", fs)
	}
	if fs := unfenced(check(append(cron, "UPDATE cron_jobs SET cron_spec = $1 WHERE id = $2")...)); len(fs) != 0 {
		t.Errorf("the schedule's text: %v", fs[0].Message)
	}
	if fs := unfenced(check("WITH c AS (SELECT id FROM jobs WHERE state = 'ready' LIMIT 1 FOR UPDATE SKIP LOCKED) UPDATE jobs SET state = 'running', owner = $1, updated_at = now() FROM c WHERE jobs.id = c.id",
		"UPDATE jobs SET state = 'done', updated_at = now() WHERE id = $1")); len(fs) != 1 || !strings.Contains(fs[0].Message, "add `AND state = $2` (the state the claim set)") {
		t.Errorf("a completion that skips the claim: %v", fs)
	}
}
