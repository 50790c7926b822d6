package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// schemaModule writes a module whose migrations declare a version column
// that its code compare-and-sets, and bumps blind.
func schemaModule(t *testing.T, config string) string {
	t.Helper()
	dir := module(t, `package m

const bumpExecution = "UPDATE executions SET db_record_version = db_record_version + 1 WHERE shard_id = $1 AND run_id = $2"

const lock = "SELECT * FROM executions WHERE run_id = $1 FOR SHARE"

const casExecution = "UPDATE executions SET db_record_version = $1 WHERE shard_id = $2 AND run_id = $3 AND db_record_version = $4"
`)
	files := map[string]string{
		"db/migrations/000001_init.up.sql":      "CREATE TABLE executions (\n  shard_id int,\n  run_id bytea,\n  state text,\n  PRIMARY KEY (shard_id, run_id)\n);\n",
		"db/migrations/000001_init.down.sql":    "DROP TABLE executions;\n",
		"db/migrations/000012_version.up.sql":   "\nALTER TABLE executions ADD COLUMN db_record_version bigint NOT NULL DEFAULT 0;\n",
		"db/migrations/000012_version.down.sql": "ALTER TABLE executions DROP COLUMN db_record_version;\n",
		".dsqllint.yaml":                        config,
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSchemaAndConfig: the CLI finds the schema in the migrations, cites
// it, and honours .dsqllint.yaml, which flags override.
func TestSchemaAndConfig(t *testing.T) {
	dir := schemaModule(t, "# defaults\n")
	out, code := run(t, dir, bin, "./...")
	want := "m.go:3:88: DSQL003 unfenced-write: db_record_version is compare-and-set: m.go:7 compare-and-sets db_record_version; " +
		"this UPDATE changes db_record_version by the row's key without comparing it, so a stale writer overwrites the winner: " +
		"add `AND db_record_version = $3` with the value read earlier and check that one row changed (occ.ExecCAS) (db_record_version is declared at db/migrations/000012_version.up.sql:2)"
	if code != 3 || !strings.Contains(out, want) || !strings.Contains(out, "DSQL001") {
		t.Errorf("exit %d, want %d and %q:\n%s", code, 3, want, out)
	}

	dir = schemaModule(t, "disable: [DSQL003]\nexclude:\n  - path: m.go\n    rules: [DSQL001, DSQL005]\n")
	out, code = run(t, dir, bin, "./...")
	if code != 0 || out != "" {
		t.Errorf("with DSQL003 disabled and DSQL001, DSQL005 excluded in m.go: exit %d\n%s", code, out)
	}
	// A flag overrides the file's setting; the exclude still holds.
	out, code = run(t, dir, bin, "-disable=DSQL109", "./...")
	if code != 3 || !strings.Contains(out, "DSQL003") || strings.Contains(out, "DSQL001") {
		t.Errorf("-disable=DSQL109 over the file's disable: exit %d\n%s", code, out)
	}

	// The schema setting points elsewhere: nothing there knows executions.
	dir = schemaModule(t, "schema: [db/other.sql]\n")
	if err := os.WriteFile(filepath.Join(dir, "db", "other.sql"), []byte("CREATE TABLE other (id int);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ = run(t, dir, bin, "./...")
	if !strings.Contains(out, "DSQL003") || strings.Contains(out, "declared at db/migrations") {
		t.Errorf("schema setting ignored:\n%s", out)
	}
}

// TestConfigErrors: a bad file fails the run with file:line, whatever the
// driver.
func TestConfigErrors(t *testing.T) {
	cases := []struct{ config, want string }{
		{"dsql-version: 2026-09\nfence-column: [x]\n", `.dsqllint.yaml:2: unknown key "fence-column"`},
		{"\ndsql-version: 2026-13\n", `.dsqllint.yaml:2: dsql-version: invalid DSQL version "2026-13"`},
		{"disable: [DSQL999]\n", `.dsqllint.yaml:1: disable: unknown rule "DSQL999"`},
		{"schema: db/none\n", `.dsqllint.yaml:1: schema: db/none: no such file or directory`},
	}
	for _, c := range cases {
		dir := schemaModule(t, c.config)
		out, code := run(t, dir, bin, "./...")
		if code != 1 || !strings.Contains(out, c.want) {
			t.Errorf("%q: exit %d, want %d and %q:\n%s", c.config, code, 1, c.want, out)
		}
		out, code = run(t, dir, "go", "vet", "-vettool="+bin, "./...")
		if code == 0 || !strings.Contains(out, c.want) {
			t.Errorf("go vet, %q: exit %d, want %q:\n%s", c.config, code, c.want, out)
		}
	}
}

// TestVetToolConfig: go vet -vettool reads the same file and schema.
func TestVetToolConfig(t *testing.T) {
	dir := schemaModule(t, "disable: [DSQL001]\n")
	out, code := run(t, dir, "go", "vet", "-vettool="+bin, "./...")
	if code == 0 || !strings.Contains(out, "(db_record_version is declared at db/migrations/000012_version.up.sql:2)") || strings.Contains(out, "DSQL001") {
		t.Errorf("go vet -vettool: exit %d\n%s", code, out)
	}
	out, _ = run(t, dir, "go", "vet", "-vettool="+bin, "-disable=DSQL003", "./...")
	if !strings.Contains(out, "DSQL001") || strings.Contains(out, "DSQL003") {
		t.Errorf("go vet -vettool -disable=DSQL003 over the file:\n%s", out)
	}
}
