package rules

import (
	"strings"
	"testing"

	"github.com/dsqllint/dsqllint/catalog"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// schemaSQL is the schema of the schema-aware tests, as a migration
// would declare it.
const schemaSQL = `
CREATE TABLE shards (shard_id int PRIMARY KEY, range_id bigint NOT NULL, data bytea);
CREATE TABLE executions (shard_id int, namespace_id bytea, workflow_id text, run_id bytea,
  db_record_version bigint, data bytea, state bytea,
  PRIMARY KEY (shard_id, namespace_id, workflow_id, run_id));
CREATE TABLE leases (id text PRIMARY KEY, executor_id text, expires_at timestamptz, payload jsonb);
CREATE TABLE jobs (id bigint PRIMARY KEY, queue text, status text, result text, next_run_at timestamptz);
CREATE TABLE packages (name text PRIMARY KEY, version text, readme text);
CREATE TABLE records (id uuid PRIMARY KEY, dns_name text UNIQUE, owner_id text, etag uuid);
CREATE TABLE events (id bigint PRIMARY KEY, created_at timestamptz, body text);
CREATE TABLE tokens (id uuid PRIMARY KEY, version text, body text);
`

func withSchema() *Config { return schemaOf("db/migrations/001_init.up.sql", schemaSQL) }

// schemaOf is the default configuration with the schema file name holds.
func schemaOf(name, ddl string) *Config {
	cfg := DefaultConfig()
	cat := catalog.New()
	cat.Apply(name, sqlparse.Parse(ddl))
	cfg.Schema = cat
	return cfg
}

func TestLockScopeWithSchema(t *testing.T) {
	cfg := withSchema()
	cases := []struct{ q, want string }{
		{"SELECT * FROM records WHERE dns_name = $1 FOR UPDATE", "pins dns_name, not the primary key (id) of records (declared at db/migrations/001_init.up.sql:9)"},
		{"SELECT * FROM executions WHERE shard_id = $1 AND namespace_id = $2 AND workflow_id = $3 FOR UPDATE", "pins shard_id, namespace_id, workflow_id but not run_id of the primary key (shard_id, namespace_id, workflow_id, run_id) of executions"},
		{"SELECT * FROM jobs WHERE id IN ($1, $2) FOR UPDATE", "pins no column of the primary key (id) of jobs"},
		{"SELECT * FROM jobs WHERE id > $1 FOR UPDATE", "pins no column"},
		{"SELECT * FROM jobs FOR UPDATE", "is missing"},
		// Pinned by the whole primary key: quiet.
		{"SELECT * FROM records WHERE id = $1 FOR UPDATE", ""},
		{"SELECT * FROM executions e WHERE e.shard_id = $1 AND e.namespace_id = $2 AND e.workflow_id = $3 AND e.run_id = $4 AND e.state IS NOT NULL FOR UPDATE", ""},
		// A scalar subquery is one value: quiet. A list of rows is not.
		{"SELECT * FROM records WHERE id = (SELECT record_id FROM leases WHERE id = $1) FOR UPDATE", ""},
		{"SELECT * FROM executions WHERE (shard_id, namespace_id, workflow_id, run_id) IN (SELECT * FROM input) FOR UPDATE", "pins no column of the primary key"},
		// A condition the model cannot read may pin the key: quiet.
		{"SELECT * FROM jobs WHERE (id, queue) = ($1, $2) FOR UPDATE", ""},
		// Unknown to the schema: the shape rule, which an equality satisfies.
		{"SELECT * FROM other WHERE dns_name = $1 FOR UPDATE", ""},
	}
	for _, c := range cases {
		var got []string
		for _, f := range checkWith(cfg, c.q) {
			if f.Rule.ID == "DSQL008" {
				got = append(got, f.Message)
			}
		}
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s: want no DSQL008, got %v", c.q, got)
		case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)):
			t.Errorf("%s: got %v, want a message with %q", c.q, got, c.want)
		}
	}
	// Without a schema, an equality on any column passes.
	if fs := check(cases[0].q); ids(fs) != "" {
		t.Errorf("without a schema: %v", fs)
	}
}

func TestCASWriteWithSchema(t *testing.T) {
	cfg := withSchema()
	cases := []struct {
		q    string
		want bool
	}{
		{"UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3", true},
		{"UPDATE records SET owner_id = $1, etag = $2 WHERE dns_name = $3 AND etag = $4", true}, // a unique key
		{"UPDATE executions SET db_record_version = $1 WHERE shard_id = $2 AND db_record_version = $3", false},
		{"UPDATE jobs SET status = 'running' WHERE queue = $1 AND status = 'ready'", false}, // many rows
		{"UPDATE jobs SET status = 'running' WHERE id = $1 AND status = 'ready'", true},
		// Idempotent: no row changed means it was done already.
		{"UPDATE jobs SET status = 'done' WHERE id = $1 AND status IS DISTINCT FROM 'done'", false},
		{"UPDATE jobs SET status = 'cancelled' WHERE id = $1 AND status NOT IN ('done', 'failed')", false},
	}
	for _, c := range cases {
		st := sqlparse.Parse(c.q).Stmts[0]
		if got := IsCASWrite(cfg, st); got != c.want {
			t.Errorf("IsCASWrite(%s) = %v with a schema", c.q, got)
		}
	}
	// Without a schema, any equality besides the fence stands for the key.
	if !IsCASWrite(DefaultConfig(), sqlparse.Parse(cases[2].q).Stmts[0]) {
		t.Errorf("without a schema, the shard_id equality pins the row")
	}
}
