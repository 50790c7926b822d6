// Package retryfix holds the transaction shapes DSQL005's fix rewrites
// into the OCC retry helper (accepted.go) and those it refuses, with why
// (refused.go).
package retryfix

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jmoiron/sqlx"
)

type Store struct {
	db   *sql.DB
	pool *pgxpool.Pool
	x    *sqlx.DB
}

var errSoldOut = errors.New("sold out")

// A value, early returns with zero values, the Commit's error returned.
func (s *Store) Reserve(ctx context.Context, show int64) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()

	// The show's row first: the comments between Begin and Commit stay.
	var seats int64
	if err := tx.QueryRowContext(ctx, "SELECT seats FROM shows WHERE id = $1 FOR UPDATE", show).Scan(&seats); err != nil { // want `DSQL005 .* \(-fix runs the transaction of \(\*retryfix.Store\).Reserve in the retry helper\)`
		return 0, fmt.Errorf("read show %d: %w", show, err)
	}
	if seats == 0 {
		return 0, errSoldOut
	}
	if err := audit(ctx, tx, show); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE shows SET seats = $1 WHERE id = $2", seats-1, show); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return seats - 1, nil
}

// audit runs statements on the transaction and nothing else: a retry may
// repeat it.
func audit(ctx context.Context, tx *sql.Tx, show int64) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO audit (show_id, note) VALUES ($1, $2)", show, fmt.Sprintf("reserved %d", show))
	return err
}

// No result but the error; options; a Rollback before an error return;
// `return tx.Commit()`.
func (s *Store) Hold(ctx context.Context, show int64) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: false})
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err = tx.ExecContext(ctx, "SELECT 1 FROM shows WHERE id = $1 FOR UPDATE", show); err != nil { // want `DSQL005 .* \(-fix runs the transaction of \(\*retryfix.Store\).Hold in the retry helper\)`
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// pgx, with options and a value; an early success return.
func (s *Store) Claim(ctx context.Context, queue string) (string, error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadWrite})
	if err != nil {
		return "", err
	}
	defer tx.Rollback(ctx)
	var id string
	if err := tx.QueryRow(ctx, "SELECT id FROM jobs WHERE queue = $1 ORDER BY id LIMIT 1 FOR UPDATE", queue).Scan(&id); err != nil { // want `DSQL005 .* \(-fix runs the transaction of \(\*retryfix.Store\).Claim in the retry helper\)`
		return "", err
	}
	if id == "" {
		return "", nil
	}
	if _, err := tx.Exec(ctx, "UPDATE jobs SET state = 'running' WHERE id = $1", id); err != nil {
		return "", err
	}
	if err = tx.Commit(ctx); err != nil {
		return "", err
	}
	return id, nil
}

// pgx's Begin(ctx), nothing but the error.
func (s *Store) Bump(ctx context.Context, key string) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT n FROM counters WHERE key = $1 FOR UPDATE", key); err != nil { // want `DSQL005 .* \(-fix runs the transaction of \(\*retryfix.Store\).Bump in the retry helper\)`
		return err
	}
	return tx.Commit(ctx)
}

// sqlx, using only what *sql.Tx has.
func (s *Store) Rename(ctx context.Context, id int64, name string) error {
	tx, err := s.x.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var old string
	if err := tx.QueryRowContext(ctx, "SELECT name FROM items WHERE id = $1 FOR UPDATE", id).Scan(&old); err != nil { // want `DSQL005 .* \(-fix runs the transaction of \(\*retryfix.Store\).Rename in the retry helper\)`
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE items SET name = $1 WHERE id = $2 AND name = $3", name, id, old); err != nil {
		return err
	}
	return tx.Commit()
}

// A project's own transaction helper: the fix rewrites it once, and the
// callers' closures become what the retry re-runs.
func (s *Store) withTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

func (s *Store) Move(ctx context.Context, from, to int64) error {
	return s.withTx(ctx, func(tx *sql.Tx) error {
		var n int64
		if err := tx.QueryRowContext(ctx, "SELECT n FROM stock WHERE id = $1 FOR UPDATE", from).Scan(&n); err != nil { // want `DSQL005 .* \(-fix runs the transaction of \(\*retryfix.Store\).withTx in the retry helper\)`
			return err
		}
		_, err := tx.ExecContext(ctx, "UPDATE stock SET n = n + $1 WHERE id = $2", n, to)
		return err
	})
}

// database/sql's Begin(): each attempt begins as it did, with
// context.Background().
func (s *Store) Restock(n int64) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec("SELECT seats FROM shows WHERE id = 1 FOR UPDATE"); err != nil { // want `DSQL005 .* \(-fix runs the transaction of \(\*retryfix.Store\).Restock in the retry helper\)`
		return err
	}
	if _, err := tx.Exec("UPDATE shows SET seats = $1 WHERE id = 1", n); err != nil {
		return err
	}
	return tx.Commit()
}

// Locks run on the pool, each its own transaction: the statement is
// re-run by the runtime.
func (s *Store) ClaimOne(ctx context.Context, name string) error {
	_, err := s.db.ExecContext(ctx, "SELECT 1 FROM queue_heads WHERE name = $1 FOR UPDATE", name) // want `DSQL005 .*outside any transaction.* \(-fix runs it in the retry helper\)`
	return err
}

func (s *Store) NextID(ctx context.Context, queue string) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, "SELECT head FROM queue_heads WHERE name = $1 FOR UPDATE", queue).Scan(&id) // want `DSQL005 .*outside any transaction.* \(-fix runs it in the retry helper\)`
	return id, err
}

func (s *Store) ClaimPGX(ctx context.Context, id int64) error {
	_, err := s.pool.Exec(ctx, "SELECT 1 FROM queue_heads WHERE id = $1 FOR UPDATE", id) // want `DSQL005 .*outside any transaction.* \(-fix runs it in the retry helper\)`
	return err
}

// Rows closed by a deferred call: in the closure, at the end of each
// attempt.
func (s *Store) Names(ctx context.Context) ([]string, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, "SELECT name FROM queue_heads WHERE id = 7 FOR UPDATE") // want `DSQL005 .* \(-fix runs the transaction of \(\*retryfix.Store\).Names in the retry helper\)`
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return names, nil
}

// A claim that found nothing returns before the Commit: its one write
// changed no row, so committing instead of rolling back changes nothing.
func (s *Store) ClaimNext(ctx context.Context, worker string) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var id int64
	if err := tx.QueryRowContext(ctx, "SELECT id FROM queue_heads WHERE id = 9 FOR UPDATE").Scan(&id); err != nil { // want `DSQL005 .* \(-fix runs the transaction of \(\*retryfix.Store\).ClaimNext in the retry helper\)`
		return 0, err
	}
	res, err := tx.ExecContext(ctx, "UPDATE queue_heads SET worker = $1 WHERE id = $2 AND worker IS NULL", worker, id)
	if err != nil {
		return 0, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return 0, err
	} else if n == 0 {
		return 0, nil
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return id, nil
}
