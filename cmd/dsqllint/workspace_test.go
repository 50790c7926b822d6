package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (slash paths) under a new temporary directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A go.work root that is no module, as River lays out its client and its
// drivers: `dsqllint ./...` there lints every module of the workspace and
// joins them in one module stage, so a transaction the client begins is
// followed into the driver module's FOR UPDATE.
func TestWorkspace(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"go.work":       "go 1.25\n\nuse (\n\t./client\n\t./driver\n)\n",
		"client/go.mod": "module example.com/client\n\ngo 1.25\n",
		"client/client.go": `package client

import (
	"context"
	"database/sql"
	"strings"

	"example.com/driver"
)

func Work(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := driver.LockJob(ctx, tx, 1); err != nil {
		return err
	}
	return tx.Commit()
}

// WorkRetried re-runs the transaction when it loses a conflict.
func WorkRetried(ctx context.Context, db *sql.DB) error {
	for {
		err := workOnce(ctx, db)
		if err == nil || !strings.Contains(err.Error(), "40001") {
			return err
		}
	}
}

func workOnce(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := driver.LockQueue(ctx, tx, "q"); err != nil {
		return err
	}
	return tx.Commit()
}
`,
		"driver/go.mod": "module example.com/driver\n\ngo 1.25\n",
		"driver/driver.go": `package driver

import (
	"context"
	"database/sql"
)

func LockJob(ctx context.Context, tx *sql.Tx, id int) error {
	_, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id)
	return err
}

func LockQueue(ctx context.Context, tx *sql.Tx, name string) error {
	_, err := tx.ExecContext(ctx, "SELECT name FROM queues WHERE name = $1 FOR UPDATE", name)
	return err
}
`,
	})
	out, code := run(t, dir, bin, "./...")
	if code != 3 {
		t.Fatalf("exit %d, want 3:\n%s", code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], filepath.Join("driver", "driver.go")+":9:") || !strings.Contains(lines[0], "DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at client.go:12") ||
		!strings.Contains(lines[1], "client.go:12:") || !strings.Contains(lines[2], "passed to driver.LockJob") ||
		!strings.Contains(lines[3], "client.go:25:") || !strings.Contains(lines[3], "does not cover it") {
		t.Errorf("want one DSQL005 at LockJob with the Begin, the call and the retry that does not cover it, got:\n%s", out)
	}
	// One module of the workspace alone: its packages, not the other's.
	// Nothing in it retries on 40001, so both locks are reported, each
	// on the transaction its callers hand it.
	out, code = run(t, filepath.Join(dir, "driver"), bin, "./...")
	if code != 3 || strings.Count(out, "DSQL005") != 2 || strings.Count(out, "nothing in this module retries on SQLSTATE 40001") != 2 || strings.Contains(out, "client.go") {
		t.Errorf("the driver module alone: exit %d:\n%s", code, out)
	}
}
