package catalog

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// TestDiscoverAndReplay finds the schema of layouts shaped like those of
// goose, golang-migrate, dbmate, sqlc, atlas and pg_dump projects, and
// replays it.
func TestDiscoverAndReplay(t *testing.T) {
	cases := []struct {
		dir      string
		patterns []string
		from     string
		want     string
	}{
		{"goose", nil, "migration directories", `
public.leases(id text, worker_id text, expires_at timestamptz) pk(id)
public.shards(shard_id int4, range_id int8) pk(shard_id)`},
		// 10_ after 2_; down files left out; the table renamed.
		{"migrate", nil, "migration directories", `
public.workflow_executions(shard_id int4, namespace_id bytea, workflow_id varchar, run_id bytea, next_event_id int8, db_record_version int8) pk(shard_id,namespace_id,workflow_id,run_id)`},
		// The partial unique index is no key of the table; the later one is.
		{"dbmate", nil, "migration directories", `
public.jobs(id int8, queue text, status text, locked_by text) pk(id) unique(locked_by)`},
		// sqlc's postgresql schema, not the mysql one.
		{"sqlc", nil, "sqlc configuration sqlc.yaml", `
public.authors(id bigserial, name text, bio text, version int4) pk(id) unique(name)`},
		// Quoted and qualified names; the unparsable statement skipped.
		{"atlas", nil, "migration directories", `
app.users(id uuid, tenant text, email text, etag uuid, deleted_at timestamptz) pk(tenant,id) unique(tenant,email)`},
		{"pgdump", []string{"schema.sql"}, "schema setting", `
public.task_queues(range_hash int8, task_queue_id bytea, range_id int8, data bytea) pk(range_hash,task_queue_id)`},
		// A directory named for MySQL is left out when a PostgreSQL one is there.
		{"dialects", nil, "migration directories", `
public.shards(shard_id int4, range_id int8, data bytea) pk(shard_id)`},
		// Version directories that only alter tables come along, v1.10 after v1.2.
		{"versioned", nil, "migration directories", `
public.namespaces(partition_id int4, id bytea, name varchar, notification_version int8) pk(partition_id,id) unique(name)`},
		// pop's layout (Ory): PostgreSQL's copy of a version, not the
		// others', and nothing of a version for SQLite alone.
		{"pop", nil, "migration directories", `
public.identities(id uuid, nid uuid, state text, updated_at timestamp) pk(id)`},
		// A directory given by the setting, its files in migration order.
		{"migrate", []string{"migrations"}, "schema setting", `
public.workflow_executions(shard_id int4, namespace_id bytea, workflow_id varchar, run_id bytea, next_event_id int8, db_record_version int8) pk(shard_id,namespace_id,workflow_id,run_id)`},
		{"goose", []string{"db/migrations/0000[12]_*.sql"}, "schema setting", `
public.leases(id text, worker text, expires_at timestamptz) pk(id)
public.shards(shard_id int4, range_id int8, data bytea) pk(shard_id)`},
	}
	for _, c := range cases {
		root := filepath.Join("testdata", c.dir)
		src, err := Discover(root, c.patterns)
		if err != nil {
			t.Errorf("%s: %v", c.dir, err)
			continue
		}
		if src.From != c.from {
			t.Errorf("%s: schema from %q, want %q", c.dir, src.From, c.from)
		}
		cat, err := Load(root, src.Files)
		if err != nil {
			t.Errorf("%s: %v", c.dir, err)
			continue
		}
		if got, want := strings.TrimSpace(cat.Describe()), strings.TrimSpace(c.want); got != want {
			t.Errorf("%s %v: catalog\n%s\nwant\n%s\n(files %v)", c.dir, c.patterns, got, want, src.Files)
		}
	}
}

func TestDiscoverErrors(t *testing.T) {
	for _, p := range []string{"nope.sql", "db/none_*.sql", "db"} {
		if _, err := Discover(filepath.Join("testdata", "goose"), []string{p}); err == nil && p != "db" {
			t.Errorf("schema %q: no error", p)
		}
	}
	src, err := Discover(filepath.Join("testdata", "goose", "db", "migrations"), []string{"."})
	if err != nil || len(src.Files) != 3 {
		t.Errorf("schema . = %v, %v; want the three migrations", src.Files, err)
	}
	src, err = Discover(t.TempDir(), nil)
	if err != nil || src.From != "" || len(src.Files) != 0 {
		t.Errorf("empty module: %+v, %v; want nothing", src, err)
	}
}

func TestPositions(t *testing.T) {
	root := filepath.Join("testdata", "migrate")
	src, _ := Discover(root, nil)
	cat, err := Load(root, src.Files)
	if err != nil {
		t.Fatal(err)
	}
	tbl := cat.Table("", "workflow_executions")
	if tbl == nil {
		t.Fatal("no table workflow_executions")
	}
	if got := tbl.Column("db_record_version").Pos.String(); got != "migrations/2_add_version.up.sql:1" {
		t.Errorf("db_record_version declared at %s", got)
	}
	if got := tbl.Column("next_event_id").Pos.String(); got != "migrations/1_init.up.sql:6" {
		t.Errorf("next_event_id declared at %s", got)
	}
	if got := tbl.Pos.String(); got != "migrations/1_init.up.sql:1" {
		t.Errorf("table declared at %s", got)
	}
}

func TestLookup(t *testing.T) {
	c := New()
	c.Apply("a.sql", sqlparse.Parse("CREATE TABLE t (id int PRIMARY KEY); CREATE TABLE s.u (id int); CREATE TABLE s.t (k int); CREATE TABLE r.u (id int)"))
	for _, q := range []struct{ schema, name, want string }{
		{"", "t", "public.t"},       // the default schema first
		{"public", "t", "public.t"}, // qualified
		{"s", "t", "s.t"},
		{"x", "t", ""}, // two schemas have t: not known
		{"", "u", ""},  // two schemas have u, neither the default
		{"r", "u", "r.u"},
		{"", "nope", ""},
	} {
		got := ""
		if tbl := c.Table(q.schema, q.name); tbl != nil {
			got = tbl.Schema + "." + tbl.Name
		}
		if got != q.want {
			t.Errorf("Table(%q, %q) = %q, want %q", q.schema, q.name, got, q.want)
		}
	}
}

func TestReplay(t *testing.T) {
	cases := []struct{ ddl, want string }{
		// IF NOT EXISTS keeps the first definition; a plain CREATE replaces.
		{"CREATE TABLE t (a int); CREATE TABLE IF NOT EXISTS t (b int)", "public.t(a int4)"},
		{"CREATE TABLE t (a int); CREATE TABLE t (b int)", "public.t(b int4)"},
		// Aurora DSQL refuses to drop a primary-key column: the table keeps
		// it. Dropping a column of a unique key drops that key.
		{"CREATE TABLE t (a int, b int, PRIMARY KEY (a, b), UNIQUE (b)); ALTER TABLE t DROP COLUMN b", "public.t(a int4, b int4) pk(a,b) unique(b)"},
		{"CREATE TABLE t (a int PRIMARY KEY, b int, UNIQUE (b)); ALTER TABLE t DROP COLUMN b", "public.t(a int4) pk(a)"},
		// Renaming a key column renames it in the key.
		{"CREATE TABLE t (a int PRIMARY KEY); ALTER TABLE t RENAME COLUMN a TO id", "public.t(id int4) pk(id)"},
		{"CREATE TABLE t (a int, CONSTRAINT t_pk PRIMARY KEY (a)); ALTER TABLE t DROP CONSTRAINT t_pk", "public.t(a int4)"},
		{"CREATE TABLE t (a int, b int); CREATE UNIQUE INDEX t_b ON t (b); ALTER TABLE t ADD CONSTRAINT t_pk PRIMARY KEY USING INDEX t_b", "public.t(a int4, b int4) pk(b)"},
		{"CREATE TABLE t (a int, b int); CREATE UNIQUE INDEX t_b ON t (b); ALTER INDEX t_b RENAME TO t_b2; DROP INDEX t_b2", "public.t(a int4, b int4)"},
		{"CREATE TABLE t (a int); ALTER TABLE t ALTER COLUMN a TYPE bigint", "public.t(a int8)"},
		{"CREATE TABLE t (a int); CREATE TABLE u (LIKE t, b text[])", "public.t(a int4)\npublic.u(a int4, b text[])"},
		{"CREATE TABLE t (a int); DROP TABLE t", ""},
		// What the model does not know changes nothing.
		{"CREATE TABLE t (a int); ALTER TABLE nope ADD COLUMN x int; DROP TABLE nope; CREATE TABLE %s (x int)", "public.t(a int4)"},
	}
	for _, c := range cases {
		cat := New()
		cat.Apply("x.sql", sqlparse.Parse(c.ddl))
		if got := strings.TrimSpace(cat.Describe()); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.ddl, got, c.want)
		}
	}
}

func TestUpPart(t *testing.T) {
	in := "-- +goose Up\nCREATE TABLE a (x int);\n-- +goose Down\nDROP TABLE a;\n"
	want := "-- +goose Up\nCREATE TABLE a (x int);\n              \n             \n"
	if got := UpPart(in); got != want {
		t.Errorf("UpPart = %q, want %q", got, want)
	}
	for _, in := range []string{
		"-- migrate:up\nCREATE TABLE a (x int);\n-- migrate:down\nDROP TABLE a;\n-- migrate:up\nCREATE TABLE b (y int);\n",
		// sql-migrate
		"-- +migrate Up\nCREATE TABLE \"a\" (x int);\n-- +migrate Down\nDROP TABLE IF EXISTS \"a\";\n-- +migrate Up\nCREATE TABLE b (y int);\n",
		// tern
		"CREATE TABLE b (y int);\n---- create above / drop below ----\nDROP TABLE b;\n",
	} {
		if got := UpPart(in); strings.Contains(got, "DROP") || !strings.Contains(got, "CREATE TABLE b") || strings.Count(got, "\n") != strings.Count(in, "\n") {
			t.Errorf("UpPart = %q", got)
		}
	}
}

func TestOrderAndDown(t *testing.T) {
	files := []string{"m/10_c.up.sql", "m/2_b.up.sql", "m/1_a.up.sql", "v/v1.10/x.sql", "v/v1.9/x.sql", "g/20230102_x.sql", "g/20230101_y.sql"}
	Order(files)
	want := "g/20230101_y.sql g/20230102_x.sql m/1_a.up.sql m/2_b.up.sql m/10_c.up.sql v/v1.9/x.sql v/v1.10/x.sql"
	if got := strings.Join(files, " "); got != want {
		t.Errorf("Order = %s\nwant %s", got, want)
	}
	for name, down := range map[string]bool{"1_a.down.sql": true, "down.sql": true, "U2__undo.sql": true, "1_a.up.sql": false, "V1__init.sql": false, "downstream.sql": false} {
		if IsDown(name) != down {
			t.Errorf("IsDown(%s) = %v", name, !down)
		}
	}
}

// A file larger than one parse is replayed in pieces, every table found.
func TestLargeFile(t *testing.T) {
	var b strings.Builder
	n := 0
	for b.Len() <= 2*sqlparse.MaxBytes {
		b.WriteString("CREATE TABLE t")
		b.WriteString(strings.Repeat("x", n%7))
		b.WriteString("_" + strconv.Itoa(n) + " (id bigint PRIMARY KEY, version bigint, data text);\n")
		n++
	}
	cat := New()
	cat.replay("big.sql", b.String())
	if cat.Len() != n {
		t.Errorf("replayed %d tables of %d", cat.Len(), n)
	}
	for _, tbl := range cat.Tables() {
		if tbl.Pos.Line < 1 || tbl.Pos.Line > n {
			t.Fatalf("%s at line %d of %d", tbl.Name, tbl.Pos.Line, n)
		}
	}
}

// TestOtherDialectPaths: SQL named for another database is left out where
// the directory above it also holds SQL named for none; alone, it stays.
func TestOtherDialectPaths(t *testing.T) {
	cases := []struct {
		name  string
		files []string
		want  []string
	}{
		{"a copy per database", []string{"migrations/postgres/1.sql", "migrations/mysql/1.sql", "migrations/sqlite3/1.sql"},
			[]string{"migrations/mysql", "migrations/sqlite3"}},
		{"only MySQL's", []string{"db/mysql/1.sql", "db/mysql/2.sql"}, nil},
		{"a file per database", []string{"db/schema.sql", "db/schema.sqlite.sql", "db/mysql_schema.sql"},
			[]string{"db/mysql_schema.sql", "db/schema.sqlite.sql"}},
		{"no database's name", []string{"oracles/1.sql", "migrations/1.sql", "mysqlish/1.sql"}, nil},
		{"PostgreSQL's elsewhere", []string{"a/mysql/1.sql", "b/1.sql"}, nil},
		{"a migration that mentions one", []string{"migrations/006_jsonb.sql", "migrations/007_sqlite_jsonb_cleanup.up.sql"}, nil},
		{"no PostgreSQL copy of the file", []string{"db/schema.sqlite.sql", "db/seed.sql"}, nil},
		{"PostgreSQL's named too", []string{"db/schema.postgres.sql", "db/schema.mysql.sql"}, []string{"db/schema.mysql.sql"}},
		// pop's layout (Ory): a copy per database, CockroachDB's too, and
		// beside the copy for all, run without a transaction, MySQL's own.
		{"pop's copies", []string{"sql/1_ids.postgres.up.sql", "sql/1_ids.cockroach.up.sql", "sql/1_ids.mysql.up.sql", "sql/1_ids.sqlite3.up.sql",
			"sql/2_idx.autocommit.up.sql", "sql/2_idx.mysql.up.sql", "sql/3_new.up.sql"},
			[]string{"sql/1_ids.cockroach.up.sql", "sql/1_ids.mysql.up.sql", "sql/1_ids.sqlite3.up.sql", "sql/2_idx.mysql.up.sql"}},
		// pop runs a version's copy for the database, else the one for
		// all: the copy for all beside PostgreSQL's own runs elsewhere,
		// and a title's words (initial_sqlite) name no database.
		{"pop's choice", []string{"sql/4_flow.autocommit.up.sql", "sql/4_flow.postgres.up.sql", "sql/4_flow.mysql.up.sql", "sql/4_flow.down.sql",
			"sql/4_flow.sqlite.down.sql", "sql/5_idx.up.sql", "sql/5_idx.postgres.autocommit.up.sql", "sql/5_idx.down.sql",
			"sql/6_initial_sqlite.up.sql", "sql/6_initial_sqlite.sqlite.up.sql", "sql/7_only.mysql.up.sql"},
			[]string{"sql/4_flow.autocommit.up.sql", "sql/4_flow.mysql.up.sql", "sql/4_flow.sqlite.down.sql", "sql/5_idx.up.sql", "sql/6_initial_sqlite.sqlite.up.sql", "sql/7_only.mysql.up.sql"}},
		// A version for other databases only runs on PostgreSQL nothing
		// where the directory has PostgreSQL's path (Ory Kratos's SQLite
		// error tables); a directory of one database's files alone is
		// the schema being ported.
		{"pop's versions for others only", []string{"sql/1_ids.up.sql", "sql/2_errors.sqlite3.up.sql", "sql/2_errors.sqlite3.down.sql", "sql/3_fk.cockroach.up.sql", "sql/3_fk.mysql.up.sql",
			"legacy/1_ids.cockroach.up.sql", "legacy/2_idx.cockroach.up.sql"},
			[]string{"sql/2_errors.sqlite3.down.sql", "sql/2_errors.sqlite3.up.sql", "sql/3_fk.cockroach.up.sql", "sql/3_fk.mysql.up.sql"}},
	}
	for _, c := range cases {
		root := t.TempDir()
		m := moduleFiles{root: root}
		for _, f := range c.files {
			m.sql = append(m.sql, filepath.Join(root, filepath.FromSlash(f)))
		}
		var got []string
		for _, p := range m.otherDialectPaths() {
			rel, _ := filepath.Rel(root, p)
			got = append(got, filepath.ToSlash(rel))
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestNamedIn: the database a name written as one word names, whole or
// in part; "pg" only whole, as it is part of too many words.
func TestNamedIn(t *testing.T) {
	for _, c := range []struct {
		name  string
		whole bool
		want  string
	}{
		{"sqlite3", true, "SQLite"}, {"cockroachdb", true, "CockroachDB"}, {"postgres", true, "PostgreSQL"}, {"pg", true, "PostgreSQL"},
		{"DBTypeMySQL", false, "MySQL"}, {"KindSQLite", false, "SQLite"},
		{"DBTypeMySQL", true, ""}, {"upgrade", false, ""}, {"version", false, ""},
	} {
		if got := NamedIn(c.name, c.whole); got != c.want {
			t.Errorf("NamedIn(%q, %v) = %q, want %q", c.name, c.whole, got, c.want)
		}
	}
}
