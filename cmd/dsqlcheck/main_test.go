package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dsqllint/dsqllint/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// simpleClient runs a script the way psql does, through the simple query
// protocol, one statement (ended by a semicolon and a line break) per
// Query message, on the server at dsn, and prints what psql would say of
// it: "ERROR:  message" for an error, each result's columns and rows
// separated by " | ". `\set ON_ERROR_STOP 1` stops at the first error,
// which the returned error then reports. The tests carry their own client
// rather than need a system psql.
func simpleClient(ctx context.Context, dsn, script string) (string, error) {
	conn, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	var out strings.Builder
	stop := false
	var stmts []string
	var cur strings.Builder
	for _, line := range strings.Split(script, "\n") {
		switch l := strings.TrimSpace(line); {
		case strings.HasPrefix(l, `\set ON_ERROR_STOP`):
			stmts = append(stmts, l) // a meta-command, on its own line
		case l != "":
			cur.WriteString(line + "\n")
			if strings.HasSuffix(l, ";") {
				stmts = append(stmts, strings.TrimSpace(cur.String()))
				cur.Reset()
			}
		}
	}
	for _, stmt := range stmts {
		if strings.HasPrefix(stmt, `\set ON_ERROR_STOP`) {
			stop = strings.HasSuffix(stmt, " 1") || strings.HasSuffix(stmt, " on")
			continue
		}
		results, err := conn.Exec(ctx, stmt).ReadAll()
		for _, r := range results {
			if len(r.FieldDescriptions) == 0 {
				continue
			}
			var names []string
			for _, f := range r.FieldDescriptions {
				names = append(names, f.Name)
			}
			out.WriteString(strings.Join(names, " | ") + "\n")
			for _, row := range r.Rows {
				var vals []string
				for _, v := range row {
					vals = append(vals, string(v))
				}
				out.WriteString(strings.Join(vals, " | ") + "\n")
			}
		}
		var pe *pgconn.PgError
		switch {
		case errors.As(err, &pe):
			out.WriteString("ERROR:  " + pe.Message + "\n")
			if stop {
				return out.String(), err
			}
		case err != nil:
			return out.String(), err
		}
	}
	return out.String(), nil
}

// TestServePsql runs the command between a client of the simple protocol
// (as psql, one Query message per statement) and PostgreSQL: refusals
// come back as DSQL's errors,
// a refusal aborts the transaction and COMMIT rolls back; the findings
// are written as JSON when the command stops.
func TestServePsql(t *testing.T) {
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
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return simpleClient(ctx, fmt.Sprintf("host=%s port=5433 user=%s dbname=%s sslmode=disable", dir, cfg.User, cfg.Database), script)
	}
	out, err := sh("\\set ON_ERROR_STOP 1\nSELECT v FROM t WHERE id = 1 FOR SHARE;\n")
	if err == nil || !strings.Contains(out, "ERROR:  locking clauses other than FOR UPDATE/FOR KEY SHARE are not supported") {
		t.Fatalf("FOR SHARE through the client: %v\n%s", err, out)
	}
	out, err = sh("BEGIN;\nINSERT INTO t (id) VALUES (2);\nTRUNCATE t;\nSELECT 1;\nCOMMIT;\nSELECT count(*) AS rows FROM t;\n")
	for _, want := range []string{
		"ERROR:  unsupported statement: Truncate",
		"ERROR:  current transaction is aborted, commands ignored until end of transaction block",
		"rows\n1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("script: missing %q in\n%s", want, out)
		}
	}
	out, err = sh("CREATE INDEX ASYNC t_v ON t (v);\nSELECT status FROM sys.jobs;\n")
	if err != nil || !strings.Contains(out, "completed") || !strings.Contains(out, "job_id") {
		t.Errorf("CREATE INDEX ASYNC and sys.jobs through the client: %v\n%s", err, out)
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
