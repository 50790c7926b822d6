package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkLoad200 discovers and replays a module's 200 goose migrations,
// each creating three tables and altering one of the migration before:
// what a run pays once for its schema. Every iteration writes new table
// names, so that the parse cache never answers.
func BenchmarkLoad200(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		root := b.TempDir()
		writeMigrations(b, root, 200, fmt.Sprintf("i%d_", i))
		b.StartTimer()
		src, err := Discover(root, nil)
		if err != nil {
			b.Fatal(err)
		}
		cat, err := Load(root, src.Files)
		if err != nil || cat.Len() != 600 {
			b.Fatalf("%d tables, %v", cat.Len(), err)
		}
	}
}

func writeMigrations(b *testing.B, root string, n int, prefix string) {
	dir := filepath.Join(root, "db", "migrations")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for m := 0; m < n; m++ {
		var s strings.Builder
		s.WriteString("-- +goose Up\n")
		fmt.Fprintf(&s, "CREATE TABLE %[2]sshards_%[1]d (shard_id int PRIMARY KEY, range_id bigint NOT NULL, data bytea);\n"+
			"CREATE TABLE %[2]sexecutions_%[1]d (shard_id int, run_id bytea, next_event_id bigint, data bytea, PRIMARY KEY (shard_id, run_id));\n"+
			"CREATE TABLE %[2]sleases_%[1]d (resource_id text PRIMARY KEY, namespace text, worker_id text, expires_at timestamptz);\n", m, prefix)
		if m > 0 {
			fmt.Fprintf(&s, "ALTER TABLE %[2]sshards_%[1]d ADD COLUMN updated_at timestamptz;\nCREATE UNIQUE INDEX ASYNC %[2]sleases_%[1]d_ns ON %[2]sleases_%[1]d (namespace, resource_id);\n", m-1, prefix)
		}
		s.WriteString("-- +goose Down\nSELECT 1;\n")
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%05d_step.sql", m+1)), []byte(s.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
