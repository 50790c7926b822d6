package sqlparse

import (
	"fmt"
	"strings"
	"testing"
)

// changes renders the schema changes of a text, one per line.
func changes(t *testing.T, text string) string {
	t.Helper()
	var out []string
	for _, st := range Parse(text).Stmts {
		for _, c := range st.Changes {
			s := fmt.Sprintf("%d %s.%s", c.Kind, c.Table.Schema, c.Table.Name)
			for _, col := range c.Columns {
				s += fmt.Sprintf(" col(%s %s@%s)", col.Name, col.Type, text[col.Span.Start:col.Span.End])
			}
			for _, k := range c.Keys {
				s += fmt.Sprintf(" key(%s primary=%v partial=%v %s using=%s)", k.Name, k.Primary, k.Partial, strings.Join(k.Columns, ","), k.UsingIndex)
			}
			if c.Index.Name != "" {
				s += " index=" + c.Index.Schema + "." + c.Index.Name
			}
			if c.Name != "" || c.NewName != "" {
				s += " " + c.Name + "->" + c.NewName
			}
			if c.Like != nil {
				s += " like=" + c.Like.Name
			}
			if c.IfNotExists {
				s += " ifnotexists"
			}
			out = append(out, s)
		}
	}
	return strings.Join(out, "\n")
}

func TestSchemaChanges(t *testing.T) {
	cases := []struct{ text, want string }{
		{`CREATE TABLE shards (shard_id INT NOT NULL PRIMARY KEY, range_id BIGINT, "Data" bytea, UNIQUE (range_id))`,
			`1 .shards col(shard_id int4@shard_id) col(range_id int8@range_id) col(data bytea@"Data") key( primary=true partial=false shard_id using=) key( primary=false partial=false range_id using=)`},
		{"CREATE TABLE IF NOT EXISTS app.leases (id uuid, owner text, expires_at timestamptz, CONSTRAINT leases_pk PRIMARY KEY (id))",
			"1 app.leases col(id uuid@id) col(owner text@owner) col(expires_at timestamptz@expires_at) key(leases_pk primary=true partial=false id using=) ifnotexists"},
		{"CREATE TABLE copy (LIKE shards INCLUDING ALL, extra int)", "1 .copy col(extra int4@extra) like=shards"},
		{"ALTER TABLE ONLY public.shards ADD CONSTRAINT shards_pkey PRIMARY KEY (shard_id)",
			"8 public.shards key(shards_pkey primary=true partial=false shard_id using=)"},
		{"ALTER TABLE t ADD COLUMN version bigint UNIQUE, DROP COLUMN old, ALTER COLUMN n TYPE numeric(10), DROP CONSTRAINT t_u",
			"4 .t col(version int8@version) key( primary=false partial=false version using=)\n5 .t old->\n7 .t col(n numeric@n) n->\n9 .t t_u->"},
		{"ALTER TABLE t ADD CONSTRAINT t_pk PRIMARY KEY USING INDEX t_idx", "8 .t key(t_pk primary=true partial=false  using=t_idx)"},
		{"CREATE UNIQUE INDEX ASYNC t_idx ON t (a, b)", "10 .t key(t_idx primary=false partial=false a,b using=) index=.t_idx"},
		{"CREATE UNIQUE INDEX t_live ON t (a) WHERE deleted_at IS NULL", "10 .t key(t_live primary=false partial=true a using=) index=.t_live"},
		{"CREATE UNIQUE INDEX t_lower ON t (lower(name))", "10 .t key(t_lower primary=false partial=true  using=) index=.t_lower"},
		{"CREATE INDEX t_a ON t (a)", "10 .t index=.t_a"},
		{"DROP TABLE IF EXISTS a, s.b CASCADE", "2 .a\n2 s.b"},
		{"DROP INDEX t_idx", "11 . index=.t_idx"},
		{"ALTER TABLE t RENAME TO u", "3 .t ->u"},
		{"ALTER TABLE t RENAME COLUMN a TO b", "6 .t a->b"},
		{"ALTER INDEX t_idx RENAME TO u_idx", "12 . index=.t_idx ->u_idx"},
		// Not shape changes.
		{"CREATE TABLE p1 PARTITION OF p FOR VALUES IN (1)", ""},
		{"ALTER TABLE t ENABLE ROW LEVEL SECURITY", ""},
		{"CREATE VIEW v AS SELECT 1", ""},
		{"UPDATE t SET a = 1 WHERE id = $1", ""},
	}
	for _, c := range cases {
		if got := changes(t, c.text); got != c.want {
			t.Errorf("changes of %q:\n got %s\nwant %s", c.text, got, c.want)
		}
	}
}

// The changes of a statement after the first of a text carry offsets of
// the whole text.
func TestSchemaChangeSpansInScript(t *testing.T) {
	text := "SELECT 1;\nCREATE TABLE t (\n  id int,\n  version bigint\n);"
	s := Parse(text)
	cols := s.Stmts[1].Changes[0].Columns
	if got := text[cols[1].Span.Start:cols[1].Span.End]; got != "version" {
		t.Errorf("span of the second column = %q, want version", got)
	}
}

func TestConditionOperators(t *testing.T) {
	cases := []struct {
		where string
		op    Op
	}{
		{"status NOT IN ('done', 'failed')", OpNotIn},
		{"status <> ALL ($2)", OpNotIn},
		{"id = ANY ($1)", OpIn},
		{"id IN ($1, $2)", OpIn},
		{"status IS DISTINCT FROM 'done'", OpDistinct},
		{"status IS NOT DISTINCT FROM $2", OpEq},
		{"executor_id <> $1", OpNe},
		{"version = sqlc.arg(expected_version)", OpEq},
		{"id = ANY(sqlc.slice('ids'))", OpIn},
	}
	for _, c := range cases {
		st := Parse("UPDATE t SET x = 1 WHERE " + c.where).Stmts[0]
		if st.Write == nil || len(st.Write.Where) != 1 {
			t.Fatalf("%s: no condition modelled", c.where)
		}
		if got := st.Write.Where[0]; got.Op != c.op || got.Column == "" || got.Value != ValueCaller {
			t.Errorf("%s: got %+v, want op %d on a column with a caller value", c.where, got, c.op)
		}
	}
}
