package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dsqllint/dsqllint/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// psql finds the PostgreSQL client: on the PATH, or Debian's.
func psql(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("psql"); err == nil {
		return p
	}
	if ms, _ := filepath.Glob("/usr/lib/postgresql/*/bin/psql"); len(ms) > 0 {
		return ms[len(ms)-1]
	}
	t.Fatal("psql not found: install Debian's postgresql-client (.ci/run does)")
	return ""
}

// TestServePsql runs the command between psql, a real client of the
// simple protocol, and PostgreSQL: refusals come back as DSQL's errors,
// a refusal aborts the transaction and COMMIT rolls back; the findings
// are written as JSON when the command stops.
func TestServePsql(t *testing.T) {
	client := psql(t)
	dsn := pgtest.NewDatabase(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	setup, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Exec(ctx, "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL DEFAULT 0); INSERT INTO t (id) VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	defer setup.Close(ctx)

	dir, err := os.MkdirTemp("", "dsqlcheck")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	report := filepath.Join(dir, "findings.json")
	stop, cancel := context.WithCancel(ctx)
	var stderr bytes.Buffer
	exited := make(chan int, 1)
	go func() {
		exited <- run(stop, []string{"serve", "-listen", filepath.Join(dir, ".s.PGSQL.5433"), "-upstream", dsn, "-reject", "-json", report}, &stderr)
	}()
	for i := 0; ; i++ { // until the socket is there
		if _, err := os.Stat(filepath.Join(dir, ".s.PGSQL.5433")); err == nil {
			break
		}
		if i == 500 {
			t.Fatalf("the proxy did not start: %s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}

	sh := func(script string) (string, error) {
		cmd := exec.Command(client, "-X", "-q", "-h", dir, "-p", "5433", "-U", cfg.User, "-d", cfg.Database, "-f", "-")
		cmd.Stdin = strings.NewReader(script)
		cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := sh("\\set ON_ERROR_STOP 1\nSELECT v FROM t WHERE id = 1 FOR SHARE;\n")
	if err == nil || !strings.Contains(out, "ERROR:  locking clauses other than FOR UPDATE/FOR KEY SHARE are not supported") {
		t.Fatalf("FOR SHARE through psql: %v\n%s", err, out)
	}
	out, err = sh("BEGIN;\nINSERT INTO t (id) VALUES (2);\nTRUNCATE t;\nSELECT 1;\nCOMMIT;\nSELECT count(*) AS rows FROM t;\n")
	for _, want := range []string{
		"ERROR:  unsupported statement: Truncate",
		"ERROR:  current transaction is aborted, commands ignored until end of transaction block",
		"rows \n------\n    1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("psql script: missing %q in\n%s", want, out)
		}
	}
	out, err = sh("CREATE INDEX ASYNC t_v ON t (v);\nSELECT status FROM sys.jobs;\n")
	if err != nil || !strings.Contains(out, "completed") || !strings.Contains(out, "job_id") {
		t.Errorf("CREATE INDEX ASYNC and sys.jobs through psql: %v\n%s", err, out)
	}

	cancel()
	if code := <-exited; code != 3 {
		t.Fatalf("exit status %d, want 3 (findings)\n%s", code, stderr.String())
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var tree map[string]map[string][]struct{ Category string }
	if err := json.Unmarshal(data, &tree); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	var got []string
	for _, d := range tree["dsqlcheck"]["dsqllint"] {
		got = append(got, d.Category)
	}
	if strings.Join(got, ",") != "DSQL001,DSQL105" {
		t.Errorf("findings %v, want DSQL001,DSQL105\n%s", got, data)
	}
}
