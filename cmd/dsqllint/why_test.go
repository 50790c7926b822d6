package main_test

import (
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
