package main_test

import (
	"strconv"
	"strings"
	"testing"
)

const whySrc = `package m

import (
	"context"
	"database/sql"
	"strings"
)

func lock(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "SELECT 1 FROM jobs WHERE id = 1 FOR UPDATE")
	return err
}

func once(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM jobs WHERE id = 2 FOR UPDATE"); err != nil {
		return err
	}
	return tx.Commit()
}

// Retried re-runs once on a serialization failure.
func Retried(ctx context.Context, db *sql.DB) error {
	for {
		err := once(ctx, db)
		if err == nil || !strings.Contains(err.Error(), "40001") {
			return err
		}
	}
}

// Handle begins a transaction nothing retries and hands it to lock.
func Handle(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := lock(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}
`

// TestWhy: -why FILE:LINE prints, for the lock on that line, the verdict
// and the chain followed: to the Begin outside any retry, or to the retry
// that covers it.
func TestWhy(t *testing.T) {
	dir := module(t, whySrc)
	out, code := run(t, dir, bin, "-why", "m.go:10", "./...")
	if code != 0 || !strings.Contains(out, "m.go:10:") || !strings.Contains(out, ": reported") ||
		!strings.Contains(out, "the transaction begins in m.Handle, outside any retry on 40001") || !strings.Contains(out, "m.Handle calls m.lock, handing over its parameter") {
		t.Errorf("-why at the unretried lock: exit %d\n%s", code, out)
	}
	out, code = run(t, dir, bin, "-why", "m.go:20", "./...")
	if code != 0 || !strings.Contains(out, "quiet") || !strings.Contains(out, "m.Retried calls it inside a retry on 40001") {
		t.Errorf("-why at the retried lock: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "-why", "m.go:3", "./..."); code != 1 || !strings.Contains(out, "no FOR UPDATE") {
		t.Errorf("-why on a line with no lock: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "-why", "m.go", "./..."); code != 1 || !strings.Contains(out, "want FILE:LINE") {
		t.Errorf("-why without a line: exit %d\n%s", code, out)
	}
}

const whyWritesSrc = `package m

import (
	"context"
	"database/sql"
)

const lockTask = "SELECT status FROM tasks WHERE key = $1 FOR UPDATE"

func Touch(ctx context.Context, db *sql.DB, key string) error {
	_, err := db.ExecContext(ctx, "UPDATE tasks SET note = $1 WHERE key = $2", "x", key)
	return err
}

func Finish(ctx context.Context, db *sql.DB, key string) error {
	_, err := db.ExecContext(ctx,
		"UPDATE tasks SET status = 'done' WHERE key = $1", key)
	return err
}

func Locked(ctx context.Context, tx *sql.Tx, key string) error {
	if _, err := tx.ExecContext(ctx, lockTask, key); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE tasks SET status = 'running' WHERE key = $1", key)
	return err
}

func Log(ctx context.Context, db *sql.DB, id int) error {
	_, err := db.ExecContext(ctx, "UPDATE audit SET seen = true WHERE id = $1", id)
	return err
}

const start = "UPDATE tasks SET status = 'running' WHERE key = $1 AND status = 'new'"
`

// TestWhyWrites: -why on a write prints DSQL003's verdict with the fence
// it bypasses, or why the write is left alone.
func TestWhyWrites(t *testing.T) {
	dir := module(t, whyWritesSrc)
	for _, c := range []struct {
		line int
		want string
	}{
		{11, "DSQL003 quiet: payload only: it changes note; tasks's fences protect status"},
		{17, "DSQL003 reported: status is compare-and-set: m.go:34 compare-and-sets status; this UPDATE changes status by the row's key without comparing it"},
		{25, "DSQL003 quiet: the row is locked FOR UPDATE earlier in the same transaction"},
		{30, "DSQL003 quiet: no fence found: no statement of the module claims audit's rows"},
	} {
		out, _ := run(t, dir, bin, "-why", "m.go:"+strconv.Itoa(c.line), "./...")
		if !strings.Contains(out, c.want) {
			t.Errorf("-why m.go:%d: want %q in\n%s", c.line, c.want, out)
		}
	}
}
