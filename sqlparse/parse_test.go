package sqlparse

import (
	"slices"
	"strings"
	"testing"
)

func locksOf(t *testing.T, text string) []string {
	t.Helper()
	s := Parse(text)
	if s.Skipped != "" {
		t.Fatalf("Parse(%q) skipped: %s", text, s.Skipped)
	}
	var out []string
	for _, st := range s.Stmts {
		for _, l := range st.Locks {
			out = append(out, l.Strength.String()+"@"+text[l.Span.Start:l.Span.End])
		}
	}
	return out
}

func TestLocksEverywhere(t *testing.T) {
	cases := []struct {
		text string
		want string
	}{
		{"SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE", "FOR SHARE@FOR SHARE"},
		{"select range_id from shards where shard_id = $1 for share", "FOR SHARE@for share"},
		{"SELECT 1 FROM t WHERE id = $1 FOR NO KEY\nUPDATE", "FOR NO KEY UPDATE@FOR NO KEY\nUPDATE"},
		{"SELECT 1 FROM t WHERE id = $1 FOR /* c */ KEY SHARE NOWAIT", "FOR KEY SHARE@FOR /* c */ KEY SHARE"},
		{"WITH x AS (SELECT id FROM t WHERE id = $1 FOR SHARE) UPDATE t SET a = 1 FROM x WHERE t.id = x.id", "FOR SHARE@FOR SHARE"},
		{"SELECT * FROM a WHERE id IN (SELECT id FROM b WHERE k = $1 FOR SHARE)", "FOR SHARE@FOR SHARE"},
		{"(SELECT id FROM a WHERE k = 1 FOR UPDATE) UNION ALL (SELECT id FROM b WHERE k = 2 FOR SHARE)", "FOR UPDATE@FOR UPDATE,FOR SHARE@FOR SHARE"},
		{"SELECT 'FOR SHARE' FROM t -- FOR SHARE\nWHERE id = $1", ""},
		{"SELECT * FROM t WHERE id = ? LOCK IN SHARE MODE", "LOCK IN SHARE MODE@LOCK IN SHARE MODE"},
		{"select * from t where id = ? lock\n  in share mode", "LOCK IN SHARE MODE@lock\n  in share mode"},
		{" FOR SHARE", "FOR SHARE@FOR SHARE"},
		{" LOCK IN SHARE MODE", "LOCK IN SHARE MODE@LOCK IN SHARE MODE"},
		{" WHERE shard_id = $1 FOR SHARE", "FOR SHARE@FOR SHARE"},
		{"please update the record FOR SHARE holders", ""},
		{"Update the record FOR SHARE holders", ""},
		{"SELECT a FROM t WHERE id = :id FOR SHARE", "FOR SHARE@FOR SHARE"},
		{"SELECT a FROM t WHERE id = @id FOR SHARE", "FOR SHARE@FOR SHARE"},
		{"SELECT a FROM %s WHERE id = %d FOR SHARE", "FOR SHARE@FOR SHARE"},
		{"SELECT a FROM t1 JOIN t2 ON t1.id = t2.id WHERE t1.id = $1 FOR UPDATE OF t1 FOR SHARE OF t2 SKIP LOCKED", "FOR UPDATE@FOR UPDATE,FOR SHARE@FOR SHARE"},
	}
	for _, c := range cases {
		got := strings.Join(locksOf(t, c.text), ",")
		if got != c.want {
			t.Errorf("locks in %q = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestNormalizePlaceholders(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT * FROM t WHERE a = ? AND b=?", "SELECT * FROM t WHERE a = $1 AND b=$2"},
		{"UPDATE t SET v = :v+1 WHERE id = :id AND x = :v", "UPDATE t SET v = $1+1 WHERE id = $2 AND x = $1"},
		{"SELECT * FROM t WHERE metadata ? 'k' AND id = ?", "SELECT * FROM t WHERE metadata ? 'k' AND id = $1"},
		{"SELECT * FROM t WHERE a = $2 AND b = ?", "SELECT * FROM t WHERE a = $2 AND b = $3"},
		{"SELECT a::int, arr[1:2], ':x' FROM t WHERE c = @c", "SELECT a::int, arr[1:2], ':x' FROM t WHERE c = $1"},
		{"SELECT * FROM executions_%d WHERE id = %[2]v", "SELECT * FROM executions__" + HoleIdent + " WHERE id = " + HoleIdent},
		{"SELECT '?' /* ? */ FROM `t` WHERE x = ?", `SELECT '?' /* ? */ FROM "t" WHERE x = $1`},
	}
	for _, c := range cases {
		n := Normalize(c.in)
		if n.Text != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, n.Text, c.want)
		}
	}
}

func TestOffsetsMapBack(t *testing.T) {
	src := "UPDATE t SET v = :value WHERE id = ? FOR"
	n := Normalize(src)
	// The WHERE keyword maps back to itself.
	w := strings.Index(n.Text, "WHERE")
	if got := n.Map.ToSource(w); src[got:got+5] != "WHERE" {
		t.Errorf("WHERE maps to %d (%q)", got, src[got:])
	}
	if got := n.Map.ToSource(len(n.Text)); got != len(src) {
		t.Errorf("end maps to %d, want %d", got, len(src))
	}
}

func TestWriteModel(t *testing.T) {
	s := Parse("UPDATE shards SET range_id = $1, data = $2 WHERE shard_id = $3 AND range_id = $4")
	w := s.Stmts[0].Write
	if w == nil || w.Table.Name != "shards" || len(w.Sets) != 2 || len(w.Where) != 2 {
		t.Fatalf("bad write model: %+v", w)
	}
	if w.Where[1].Column != "range_id" || w.Where[1].Op != OpEq || w.Where[1].Value != ValueCaller {
		t.Errorf("range_id cond = %+v", w.Where[1])
	}
	s = Parse(`INSERT INTO toygres_cms.instances (k8s_name, create_orchestration_id) VALUES ($1, $2)
ON CONFLICT (k8s_name) DO UPDATE SET dns_name = EXCLUDED.dns_name
WHERE toygres_cms.instances.create_orchestration_id = EXCLUDED.create_orchestration_id RETURNING id`)
	w = s.Stmts[0].Write
	if w == nil || w.Kind != KindInsert || len(w.Where) != 1 || w.Where[0].Column != "create_orchestration_id" || w.Where[0].Value != ValueCaller {
		t.Fatalf("upsert model: %+v", w)
	}
}

// A SELECT's filters tell the columns code looks rows up by; its states
// are those compared as a value (status = 'ready', owner IS NULL), not
// ranged over (updated_at < $1).
func TestFiltersAndStates(t *testing.T) {
	st := Parse("SELECT id FROM jobs WHERE status = 'ready' AND owner IS NULL AND updated_at < $1 AND kind IN ('a', 'b')").Stmts[0]
	if want := []string{"status", "owner", "updated_at", "kind"}; !slices.Equal(st.Filters, want) {
		t.Errorf("Filters = %v, want %v", st.Filters, want)
	}
	if want := []string{"status", "owner", "kind"}; !slices.Equal(st.States, want) {
		t.Errorf("States = %v, want %v", st.States, want)
	}
	if st := Parse("UPDATE jobs SET status = 'done' WHERE status = 'ready'").Stmts[0]; st.States != nil {
		t.Errorf("a write's states = %v; only reads say what code looks rows up by", st.States)
	}
}

// Into names the table an INSERT adds rows to, a data-modifying WITH's
// too: the rows are the transaction's own.
func TestInto(t *testing.T) {
	for sql, want := range map[string]string{
		"INSERT INTO jobs AS j (id) VALUES ($1) ON CONFLICT (id) DO NOTHING":                                          "jobs",
		"WITH a AS (INSERT INTO runtime (task_id) SELECT id FROM tasks RETURNING task_id) SELECT * FROM a":            "runtime",
		"WITH a AS (UPDATE tasks SET n = 1 RETURNING id) INSERT INTO audit (id) SELECT id FROM a":                     "audit",
		"WITH a AS (SELECT id FROM tasks) UPDATE tasks SET n = 2 FROM a WHERE tasks.id = a.id":                        "",
		"WITH a AS (DELETE FROM queue WHERE id = $1 RETURNING id) INSERT INTO done SELECT id FROM a":                  "done",
		"WITH a AS (INSERT INTO s.log (id) VALUES ($1) RETURNING id) DELETE FROM queue USING a WHERE queue.id = a.id": "log",
	} {
		st := Parse(sql).Stmts[0]
		got := ""
		if st.Into != nil {
			got = st.Into.Name
		}
		if got != want {
			t.Errorf("%s: Into = %q, want %q", sql, got, want)
		}
	}
}

func TestHostileInputNeverPanics(t *testing.T) {
	inputs := []string{
		strings.Repeat("(", 3000) + "SELECT 1" + strings.Repeat(")", 3000),
		strings.Repeat("SELECT 1 FROM t WHERE id = $1 FOR SHARE;", 5000),
		"SELECT '" + strings.Repeat("x", 1<<20),
		"SELECT \x00 FROM t FOR SHARE",
		"SELECT \xff\xfe FROM t FOR SHARE",
		"SELECT 'unterminated FOR SHARE",
		"SELECT /* unterminated FOR SHARE",
		"SELECT $$ unterminated FOR SHARE",
		"SELECT $a$ x $a$ FROM t FOR SHARE",
	}
	for _, in := range inputs {
		s := Parse(in)
		if s == nil {
			t.Fatal("nil script")
		}
	}
}

// Text assembled at run time still parses when a piece known only then
// breaks the parse: a placeholder list completed by Sprintf, a schema
// prefix, MySQL's LIMIT offset, count, an optional clause.
func TestRunTimePieces(t *testing.T) {
	cases := []struct {
		sql, table string
		locks      int
	}{
		{"SELECT * FROM jobs WHERE id IN ($1" + HoleIdent + ") FOR UPDATE", "jobs", 1},
		{"SELECT * FROM jobs WHERE id IN ($1%s) FOR UPDATE", "jobs", 1},
		{"SELECT * FROM jobs WHERE id IN (?%s) FOR UPDATE", "jobs", 1},
		{"SELECT * FROM " + HoleIdent + "workflow_status WHERE workflow_uuid = $1 FOR UPDATE", "workflow_status", 1},
		{"SELECT * FROM jobs WHERE id = $1 LIMIT $2, $3 FOR UPDATE", "jobs", 1},
		{"SELECT `id` FROM `jobs` WHERE `id` = $1 FOR UPDATE", "jobs", 1},
		{"SELECT * FROM jobs WHERE queue = $1 " + HoleIdent + " FOR UPDATE", "jobs", 1},
	}
	for _, c := range cases {
		s := Parse(c.sql)
		if len(s.Stmts) != 1 || s.Stmts[0].Kind != KindSelect || len(s.Stmts[0].Locks) != c.locks {
			t.Errorf("%q: %+v", c.sql, s.Stmts)
			continue
		}
		l := s.Stmts[0].Locks[0]
		if len(l.Select.Tables) != 1 || l.Select.Tables[0].Name != c.table || l.Select.Tables[0].Unknown() {
			t.Errorf("%q: tables %+v, want %s", c.sql, l.Select.Tables, c.table)
		}
		if got := c.sql[l.Span.Start:l.Span.End]; got != "FOR UPDATE" {
			t.Errorf("%q: lock span covers %q", c.sql, got)
		}
	}
	// A hole that is the table itself stays unknown.
	s := Parse("UPDATE " + HoleIdent + " SET state = $1 WHERE id = $2")
	if w := s.Stmts[0].Write; w == nil || !w.Table.Unknown() {
		t.Errorf("hole as the table: %+v", s.Stmts[0].Write)
	}
}
