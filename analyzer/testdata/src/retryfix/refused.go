package retryfix

import (
	"context"
	"database/sql"
	"fmt"
)

type cache struct{ m map[int64]int64 }

func (c *cache) forget(id int64) { delete(c.m, id) }

type Held struct {
	db *sql.DB
	tx *sql.Tx
	c  *cache
}

// The transaction escapes into a field.
func (h *Held) Escapes(ctx context.Context) error {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	h.tx = tx
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM t WHERE id = 1 FOR UPDATE"); err != nil { // want `DSQL005 .* \(no -fix: the transaction escapes at line 26 \(stored, returned or handed on\)\)`
		return err
	}
	return tx.Commit()
}

// A side effect between Begin and Commit: printed twice on a retry.
func (h *Held) Prints(ctx context.Context) error {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM t WHERE id = 2 FOR UPDATE"); err != nil { // want `DSQL005 .* \(no -fix: line 43 calls fmt.Println between Begin and Commit: a retry would repeat it, and dsqllint cannot show it has no effect outside the transaction\)`
		return err
	}
	fmt.Println("locked")
	return tx.Commit()
}

// A goroutine between Begin and Commit.
func (h *Held) Spawns(ctx context.Context, done chan<- bool) error {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM t WHERE id = 3 FOR UPDATE"); err != nil { // want `DSQL005 .* \(no -fix: a goroutine starts at line 57, between Begin and Commit\)`
		return err
	}
	go func() { done <- true }()
	return tx.Commit()
}

// Adding to what was declared before Begin: a retry would add twice.
func (h *Held) Collects(ctx context.Context, ids []int64) ([]int64, error) {
	var seen []int64
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, "SELECT 1 FROM t WHERE id = $1 FOR UPDATE", id); err != nil { // want `DSQL005 .* \(no -fix: line 73 adds to seen, declared before Begin: a retry would add again\)`
			return nil, err
		}
		seen = append(seen, id)
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return seen, nil
}

// A value returned with an error: the helper would return the zero value.
func (h *Held) Partial(ctx context.Context) (int64, error) {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var n int64
	err = tx.QueryRowContext(ctx, "SELECT n FROM t WHERE id = 4 FOR UPDATE").Scan(&n) // want `DSQL005 .* \(no -fix: line 91 returns a value with an error, and the helper returns the zero value then\)`
	if err != nil {
		return n, err
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return n, nil
}

// Work after the Commit stays outside any retry: not rewritten.
func (h *Held) Forgets(ctx context.Context, id int64) error {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM t WHERE id = $1 FOR UPDATE", id); err != nil { // want `DSQL005 .* \(no -fix: the transaction does not end in a Commit whose error is returned, then the function's last return\)`
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	h.c.forget(id)
	return nil
}

// A sharded driver's own BeginTx: the helper cannot begin with it.
type shards struct{ db *sql.DB }

func (s *shards) BeginTx(ctx context.Context, shard int) (*sql.Tx, error) {
	return s.db.BeginTx(ctx, nil)
}

func (h *Held) Sharded(ctx context.Context, s *shards) error {
	tx, err := s.BeginTx(ctx, 3)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM t WHERE id = 5 FOR UPDATE"); err != nil { // want `DSQL005 .* \(no -fix: s has no database/sql's BeginTx\(ctx, \*sql.TxOptions\) for the helper to begin each attempt with\)`
		return err
	}
	return tx.Commit()
}

var touched int

func touch(v int64) int64 { touched++; return v }

// A refusal found early in a statement whose later parts are judged no
// more.
func (h *Held) Sums(ctx context.Context, a, b, c int64) (int64, error) {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM t WHERE id = 6 FOR UPDATE"); err != nil { // want `DSQL005 .* \(no -fix: line 150 calls touch, which line 137 adds to touched, declared outside it: a retry would add again\)`
		return 0, err
	}
	sum := touch(a) + touch(b) + touch(c) + int64(len(fmt.Sprint(a, b, c)))
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return sum, nil
}

// An error returned after the Commit: the helper would roll back what
// this commits.
func (h *Held) ErrAfter(ctx context.Context) (int64, error) {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, "SELECT n FROM t WHERE id = 7 FOR UPDATE") // want `DSQL005 .* \(no -fix: line 177 returns an error after the Commit, and the helper would roll back instead\)`
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		n++
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return n, rows.Err()
}

// A success returned before the Commit, after a write: the function rolls
// the write back; the helper would commit it.
func (h *Held) SkipAfterWrite(ctx context.Context, id int64) error {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE t SET n = n + 1 WHERE id = $1", id); err != nil {
		return err
	}
	if id%2 == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM t WHERE id = $1 FOR UPDATE", id); err != nil { // want `DSQL005 .* \(no -fix: line 192 returns without an error before the Commit, after line 188 may have written: the helper would commit that write, which the function rolls back\)`
		return err
	}
	return tx.Commit()
}
