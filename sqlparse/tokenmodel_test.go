package sqlparse

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// tokenModelSeeds are reads and inserts in the shapes persistence code
// writes, and near misses the token model must leave to the parser.
var tokenModelSeeds = []string{
	// The select list's columns and the values' placeholders, as both
	// models name them.
	"SELECT a, t.b, t.*, c AS d, e f, s.t.g FROM t WHERE id = $1 FOR UPDATE",
	"SELECT * FROM jobs WHERE queue = $1 AND state = 'available' LIMIT 1 FOR UPDATE SKIP LOCKED",
	"UPDATE t SET a = $1, b = b + $2, c = 'x' WHERE id = $3 AND a <> $1 AND c = 'y'",
	"UPDATE t SET s = 'it''s', n = 007, b = TRUE, f = 1.5e3, g = 2147483648 WHERE id = 1_000 AND s <> E'x' AND n = 0.5",
	"DELETE FROM t WHERE s = $$x$$ AND b = false AND n = 3::bigint",

	"SELECT range_id, data FROM shards WHERE shard_id = $1",
	"select * from tasks where range_hash = $1 and task_id > $2 order by task_id limit $3",
	"SELECT id FROM t WHERE metadata ? 'k' AND tags ?| array['a']",
	"SELECT count(*) FROM executions_dsqllint_hole WHERE namespace = $1",
	"SELECT a.id, b.v FROM a JOIN b ON b.a_id = a.id LEFT JOIN c USING (id) WHERE a.x IN (SELECT x FROM d)",
	"SELECT id, rank() OVER (PARTITION BY ns ORDER BY ts DESC) FROM runs",
	"WITH recent AS (SELECT run_id FROM history WHERE shard_id = $1 ORDER BY event_id DESC LIMIT 10) SELECT * FROM recent",
	"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT n FROM r",
	"SELECT 1", "SELECT $1::int + 2", "SELECT now() - interval '1 hour'", "select 'for update' as s",
	"SELECT \"for\" FROM \"into\"", "SELECT x FROM t -- FOR UPDATE\n", "SELECT /* into */ 1",
	"SELECT nextval('s')", "SELECT lastval", "SELECT pg_advisory_lock($1)", "SELECT * FROM t TABLESAMPLE SYSTEM (1)",
	"SELECT * FROM t FOR UPDATE", "SELECT * INTO new_t FROM t", "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
	"WITH u AS (UPDATE t SET a = 1 RETURNING *) SELECT * FROM u",
	"INSERT INTO executions (shard_id, run_id, data) VALUES ($1, $2, $3)",
	"insert into t values (1, 'a'), (2, 'b') returning id",
	"INSERT INTO t DEFAULT VALUES", "INSERT INTO s.t AS x (a) OVERRIDING SYSTEM VALUE VALUES (1)",
	"INSERT INTO t (a) VALUES ((SELECT max(a) FROM t))", "INSERT INTO t SELECT * FROM u",
	"INSERT INTO t (a) VALUES (1) ON CONFLICT DO NOTHING", "INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET a = excluded.a",
	"WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x", "INSERT INTO t VALUES (pg_notify('c', 'p'))",
	"UPDATE shards SET range_id = $1, data = $2 WHERE shard_id = $3 AND range_id = $4",
	"update Leases set heartbeat_at = now(), expires_at = $1::timestamptz where resource_id = $2 and worker_id = $3",
	"UPDATE s.t SET version = version + 1, owner = NULL WHERE id = $1 AND expires_at < current_timestamp",
	"UPDATE t SET a = 'x', b = 1.5, c = TRUE WHERE d IS NULL AND e IS NOT NULL AND f <> $1 AND g != $2 AND h >= 3",
	"UPDATE executions_dsqllint_hole SET n = dsqllint_hole WHERE id = dsqllint_hole",
	"UPDATE t SET a = $1", "DELETE FROM leases WHERE namespace = $1 AND expires_at < $2", "delete from t",
	"DELETE FROM t WHERE a = $1::text::int /* c */ AND -- x\n b = E'y'",
	"UPDATE t SET a = a - $1 WHERE id = $2", "UPDATE t SET a = b + 1", "UPDATE t SET a = $1 WHERE t.id = $2",
	"UPDATE t AS x SET a = 1", "UPDATE t SET a = 1 FROM u WHERE t.id = u.id", "UPDATE t SET (a, b) = ($1, $2)",
	"UPDATE t SET a = 1 WHERE id = $1 OR id = $2", "UPDATE t SET a = 1 WHERE id IN ($1, $2)",
	"UPDATE t SET a = 1 WHERE id = $1 RETURNING a", "DELETE FROM t USING u WHERE t.id = u.id",
	"UPDATE t SET a = 1 WHERE current_user = $1", "UPDATE t SET a = -1", "UPDATE t SET a = $1 WHERE b = $2::timestamp with time zone",
	"DELETE FROM t WHERE pg_advisory_lock = 1", "UPDATE ONLY t SET a = 1", "UPDATE t SET a = 'x' 'y'",
	"UPDATE t SET a = 1 WHERE", "UPDATE t SET", "DELETE FROM", "DELETE t",
	"SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE",
	"select s.range_id, s.data from public.shards as s where s.shard_id = $1 and s.range_id >= 0 for no key update",
	"SELECT * FROM tasks t WHERE t.queue = $1 AND t.leased_until IS NULL ORDER BY t.id, created DESC LIMIT 10 FOR UPDATE OF t SKIP LOCKED",
	"SELECT id FROM jobs WHERE state = 'ready' LIMIT $1 FOR SHARE NOWAIT", "SELECT a, b AS c FROM t FOR KEY SHARE",
	"SELECT * FROM t WHERE u.id = $1 FOR UPDATE", "SELECT count(*) FROM t FOR UPDATE", "SELECT * FROM t, u FOR UPDATE",
	"SELECT * FROM t JOIN u ON u.id = t.id FOR UPDATE", "SELECT * FROM t FOR UPDATE FOR SHARE", "SELECT DISTINCT a FROM t FOR UPDATE",
	"SELECT * FROM t FOR UPDATE OF u", "SELECT * FROM t LIMIT ALL FOR UPDATE", "SELECT * FROM t FOR UPDATE SKIP", "SELECT FROM t FOR UPDATE",
	"SELECT * FROM t WHERE id = $1 FOR", "SELECT * FROM t ORDER BY a NULLS FIRST FOR UPDATE",
	"INSERT INTO t TABLE u", "INSERT INTO t VALUES (1) UNION VALUES (2)", "INSERT INTO t VALUES (1) EXCEPT VALUES (2)",
	"INSERT INTO t (VALUES (1) INTERSECT VALUES (1))", "INSERT INTO t DEFAULT VALUES", "INSERT INTO t (a) (VALUES (1)) LIMIT 1",
	"SELECT i. FROM t WHERE a = 1 FOR SHARE NOWAIT", "SELECT t.from FROM t FOR UPDATE", "SELECT t. * FROM t FOR UPDATE",
	"SELECT t.a FROM t FOR UPDATE", "SELECT t.as FROM t FOR UPDATE", "SELECT a AS from FROM t FOR UPDATE",
	"SELECT", "INSERT", "SELECT FROM WHERE", "INSERT INTO t VALUES (", "select the rows", "WITH",
}

// TestTokenModelMatchesParse: wherever the token model answers for text
// pg_query accepts, its statement is the one the parse tree gives.
func TestTokenModelMatchesParse(t *testing.T) {
	modelled := 0
	for _, text := range tokenModelSeeds {
		if checkTokenModel(t, text) {
			modelled++
		}
	}
	// The shapes the models exist for must keep taking the fast path.
	for _, text := range []string{
		"SELECT range_id, data FROM shards WHERE shard_id = $1", "INSERT INTO t (a, b) VALUES ($1, $2)",
		"UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3",
		"DELETE FROM leases WHERE namespace = $1 AND expires_at < $2",
		"SELECT * FROM tasks t WHERE t.queue = $1 ORDER BY t.id LIMIT 10 FOR UPDATE SKIP LOCKED",
	} {
		if !checkTokenModel(t, text) {
			t.Errorf("%q went to pg_query; the token model should answer", text)
		}
	}
	if modelled < 25 {
		t.Errorf("the token model answered for %d texts; want the plain reads, inserts and writes (at least 25)", modelled)
	}
	for _, text := range []string{
		"SELECT * FROM t JOIN u ON u.id = t.id FOR UPDATE", "SELECT count(*) FROM t FOR UPDATE", "SELECT * INTO new_t FROM t", "SELECT pg_advisory_lock($1)",
		"WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", "INSERT INTO t SELECT * FROM u",
		"INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET a = excluded.a",
		"SELECT * FROM t TABLESAMPLE SYSTEM (1)", "UPDATE t SET a = b + 1", "UPDATE t AS x SET a = 1",
		"UPDATE t SET a = 1 WHERE id = $1 OR id = $2", "UPDATE t SET a = 1 WHERE current_user = $1",
		"UPDATE t SET a = 1 WHERE id = $1 RETURNING a", "DELETE FROM t USING u WHERE t.id = u.id",
	} {
		toks := Lex(text)
		first := significant(toks, 0, 1)
		if tokenModel(&Statement{}, text, toks, first) || tokenWrite(&Statement{}, text, toks, first) || tokenLockedSelect(&Statement{}, text, toks, first) {
			t.Errorf("token model answered for %q, which needs the parse tree", text)
		}
	}
}

// checkTokenModel reports whether the token model answered for text, and
// fails t if its answer differs from the parse tree's.
func checkTokenModel(t *testing.T, text string) bool {
	t.Helper()
	toks := Lex(text)
	first := significant(toks, 0, 1)
	start := func() *Statement {
		st := &Statement{Span: Span{0, len(text)}}
		if first >= 0 {
			st.KeywordSpan = Span{toks[first].Start, toks[first].End}
			st.Span.Start = toks[first].Start
		}
		return st
	}
	fast := start()
	if !tokenModel(fast, text, toks, first) && !tokenWrite(fast, text, toks, first) && !tokenLockedSelect(fast, text, toks, first) {
		return false
	}
	tree := parseTree(start(), text, toks, first)
	if tree.Kind == KindUnparsed {
		return true // text pg_query rejects: see tokenModel
	}
	if !reflect.DeepEqual(fast, tree) {
		t.Errorf("%q: token model\n\t%+v %+v\n\t%s\nparse tree\n\t%+v %+v\n\t%s",
			text, fast, fast.Facts, modelDetail(fast), tree, tree.Facts, modelDetail(tree))
	}
	return true
}

// modelDetail prints what a Statement's pointers hide.
func modelDetail(st *Statement) string {
	var b strings.Builder
	if st.Write != nil {
		fmt.Fprintf(&b, "write %+v ", *st.Write)
	}
	for _, l := range st.Locks {
		fmt.Fprintf(&b, "lock %+v", *l)
		if l.Select != nil {
			fmt.Fprintf(&b, " of %+v", *l.Select)
		}
	}
	return b.String()
}

// FuzzTokenModel checks the same property on any text.
func FuzzTokenModel(f *testing.F) {
	for _, s := range tokenModelSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkTokenModel(t, text)
	})
}

// TestTokenModelOnRepositorySQL checks the property on every string
// literal and .sql file of the project's test data and examples: texts
// written to exercise the rules, so mostly ones the model must leave alone.
func TestTokenModelOnRepositorySQL(t *testing.T) {
	texts := 0
	modelled := 0
	for _, root := range []string{"../analyzer/testdata", "../examples", "../cmd/dsqllint/testdata"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			var found []string
			switch filepath.Ext(path) {
			case ".sql":
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				found = append(found, string(b))
			case ".go", ".golden":
				f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
				if err != nil {
					return nil // golden files of .sql fixes are not Go
				}
				ast.Inspect(f, func(n ast.Node) bool {
					if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if s, err := strconv.Unquote(lit.Value); err == nil {
							found = append(found, s)
						}
					}
					return true
				})
			}
			for _, text := range found {
				n := Normalize(text)
				for _, sp := range n.Stmts {
					texts++
					if checkTokenModel(t, n.Text[sp.Start:sp.End]) {
						modelled++
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d statements, %d modelled from tokens", texts, modelled)
	if modelled < 25 {
		t.Errorf("only %d of %d statements went through the token model; is the test data still there?", modelled, texts)
	}
}

// TestTokenModelOnGeneratedStatements checks the property on writes,
// locking and plain reads, and inserts built from words that sit near the
// edges of the token grammar: keywords that parse as values or operators,
// casts, qualified names, aliases, joins, OR and IN, set operations.
func TestTokenModelOnGeneratedStatements(t *testing.T) {
	heads := []string{"UPDATE t SET ", "UPDATE s.t SET ", "update T set ", "DELETE FROM t ", "DELETE FROM t WHERE ", "UPDATE t SET a = "}
	words := []string{
		"a", "b", "version", "t.a", "x.a", "=", "<>", "!=", "<", "<=", ">", ">=", "+", "-", "*", "||",
		"$1", "$2", "'x'", "E'\\n'", "1", "1.5", "now()", "now", "(", ")", "current_timestamp", "current_date",
		"current_user", "user", "::", "int", "timestamp", "with", "time", "zone", "text", ",", "dsqllint_hole",
		"t_dsqllint_hole", "NULL", "null", "TRUE", "false", "DEFAULT", "IS", "NOT", "AND", "OR", "IN", "WHERE",
		"SET", "RETURNING", "FROM", "only", "value", "key", "name", "select", "case", "when", "then", "end",
		"between", "like", "row", "array", "interval", "exists", "collate", "/* c */", "--x\n", "\n",
	}
	// Slots for statements in the grammar's own shape, each with near misses.
	cols := []string{"a", "version", "Key", "t.a", "current_user", "value", "row", "dsqllint_hole", "user", "time", "\"a\""}
	ops := []string{"=", "=", "<", ">=", "<>", "!=", "IS", "IS NOT", "~", "IN"}
	vals := []string{"$1", "'x'", "1", "now()", "current_timestamp", "current_date", "NULL", "$1::int", "$2::timestamp with time zone",
		"a", "-1", "DEFAULT", "TRUE", "version + 1", "a + $1", "$1 + 1", "dsqllint_hole", "($1)", "now", "'a' 'b'"}
	joins := []string{" AND ", " AND ", " OR ", ", ", " and "}
	pick := func(rng *rand.Rand, l []string) string { return l[rng.IntN(len(l))] }
	rng := rand.New(rand.NewPCG(1, 2))
	modelled := 0
	for i := range 30000 {
		var b strings.Builder
		switch {
		case i%3 == 2: // a locking SELECT
			b.WriteString("SELECT " + pick(rng, []string{"*", "a", "t.a, x.b", "a AS b", "a b", "count(*)", "DISTINCT a", "x.*", "x.", "x.from", ""}))
			b.WriteString(" FROM " + pick(rng, []string{"t", "s.t", "t x", "t AS x", "t JOIN u ON u.id = t.id", "t, u", "only t"}))
			if rng.IntN(3) > 0 {
				b.WriteString(" WHERE ")
				for j := range 1 + rng.IntN(3) {
					if j > 0 {
						b.WriteString(pick(rng, joins))
					}
					b.WriteString(pick(rng, []string{"a", "x.a", "t.a", "u.a", "s.t.a"}) + " " + pick(rng, ops) + " " + pick(rng, vals))
				}
			}
			b.WriteString(pick(rng, []string{"", " ORDER BY a", " ORDER BY x.a DESC, b", " ORDER BY a NULLS LAST", " ORDER BY 1"}))
			b.WriteString(pick(rng, []string{"", " LIMIT 1", " LIMIT $1", " LIMIT ALL", " OFFSET 2"}))
			b.WriteString(pick(rng, []string{" FOR UPDATE", " FOR SHARE", " FOR NO KEY UPDATE", " for key share", " FOR UPDATE OF t",
				" FOR UPDATE OF x", " FOR UPDATE OF t, u SKIP LOCKED", " FOR UPDATE NOWAIT", " FOR SHARE SKIP LOCKED",
				" FOR UPDATE FOR SHARE", " FOR UPDATE SKIP", ""}))
		case i%6 == 1: // a plain read or insert
			b.WriteString(pick(rng, []string{"INSERT INTO t ", "INSERT INTO t (a, b) ", "SELECT a FROM t ", "WITH x AS (SELECT 1) "}))
			b.WriteString(pick(rng, []string{"VALUES (1, $1)", "DEFAULT VALUES", "TABLE u", "SELECT 1", "(VALUES (1))", "VALUES (now())", ""}))
			b.WriteString(pick(rng, []string{"", " UNION VALUES (2)", " UNION ALL SELECT 2", " EXCEPT TABLE u", " INTERSECT VALUES (1)",
				" ORDER BY 1", " LIMIT 1", " RETURNING *", " ON CONFLICT DO NOTHING", " INTO u", " FOR UPDATE"}))
		case i%3 == 0:
			b.WriteString(heads[rng.IntN(len(heads))])
			for range rng.IntN(12) {
				b.WriteString(words[rng.IntN(len(words))])
				b.WriteByte(' ')
			}
		default:
			b.WriteString(pick(rng, []string{"UPDATE t SET ", "UPDATE s.t SET ", "DELETE FROM t"}))
			if !strings.HasPrefix(b.String(), "DELETE") {
				for j := range 1 + rng.IntN(3) {
					if j > 0 {
						b.WriteString(", ")
					}
					b.WriteString(pick(rng, cols) + " = " + pick(rng, vals))
				}
			}
			if rng.IntN(4) > 0 {
				b.WriteString(" WHERE ")
				for j := range 1 + rng.IntN(3) {
					if j > 0 {
						b.WriteString(pick(rng, joins))
					}
					b.WriteString(pick(rng, cols) + " " + pick(rng, ops) + " " + pick(rng, vals))
				}
			}
		}
		if checkTokenModel(t, b.String()) {
			modelled++
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d of 30000 generated statements modelled from tokens", modelled)
	if modelled < 1000 {
		t.Errorf("only %d generated statements went through the token model", modelled)
	}
}
