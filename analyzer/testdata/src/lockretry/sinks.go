package lockretry

import (
	"context"
	"database/sql"

	"github.com/dsqllint/dsqllint/runtime/occ"
)

// A client whose helper begins the transaction itself and runs whatever
// text it is handed: it is a query call at its third argument.
type client struct{ db *sql.DB }

func (c *client) execLock(ctx context.Context, okIfNone bool, query string, args ...any) error {
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, query, args...); err != nil && !okIfNone {
		return err
	}
	return tx.Commit()
}

// run hands its text on to execLock: a query function of a query function.
func (c *client) run(ctx context.Context, stmt string, queue string) error {
	return c.execLock(ctx, true, stmt, queue)
}

// Each text that locks is reported, at its lock clause, naming the
// transaction the helper begins: two locks through one helper are two.
func (c *client) Pause(ctx context.Context, queue string) error {
	stmt := "SELECT name FROM queues WHERE name = $1 FOR UPDATE" // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at sinks.go:15`
	return c.execLock(ctx, true, stmt, queue)
}

func (c *client) Resume(ctx context.Context, queue string) error {
	return c.run(ctx, "SELECT name FROM queues WHERE name = $1 FOR UPDATE", queue) // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at sinks.go:15`
}

// Negative twin: the same helper, its call re-run on 40001 by the runtime
// (the helper begins a fresh transaction on each attempt).
func (c *client) PauseRetried(ctx context.Context, queue string) error {
	return occ.RunTxWithRetryVoid(ctx, c.db, func(*sql.Tx) error {
		return c.execLock(ctx, true, "SELECT name FROM queues WHERE name = $2 FOR UPDATE", queue)
	})
}

// The same through a query function of a query function.
type admin struct{ c *client }

func (a *admin) exec(ctx context.Context, stmt string, queue string) error {
	tx, err := a.c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := a.execOn(ctx, tx, stmt, queue); err != nil {
		return err
	}
	return tx.Commit()
}

func (a *admin) execOn(ctx context.Context, tx *sql.Tx, query string, args ...any) error {
	_, err := tx.ExecContext(ctx, query, args...)
	return err
}

func (a *admin) Drain(ctx context.Context, queue string) error {
	return a.exec(ctx, "SELECT name FROM queues WHERE name = $1 FOR UPDATE", queue) // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at sinks.go:54`
}

// Negatives: a text that locks nothing, through the same helpers.
func (c *client) Touch(ctx context.Context, queue string) error {
	return c.execLock(ctx, true, "UPDATE queues SET updated_at = now() WHERE name = $1", queue)
}

// A wrapper that runs its text on the pool, outside any transaction.
type pool struct{ db *sql.DB }

func (p *pool) run(ctx context.Context, name string, query string, args ...any) error {
	_, err := p.db.ExecContext(ctx, query, args...)
	return err
}

func (p *pool) Claim(ctx context.Context) error {
	return p.run(ctx, "claim", "WITH j AS (SELECT id FROM jobs WHERE id = $1 FOR UPDATE) UPDATE jobs SET state = 1 FROM j WHERE jobs.id = j.id") // want `DSQL005 lock-without-retry: this statement locks FOR UPDATE outside any transaction`
}

// Negative: the same call in a closure the runtime re-runs on 40001.
func (p *pool) ClaimRetried(ctx context.Context) error {
	return occ.RunTxWithRetryVoid(ctx, p.db, func(*sql.Tx) error {
		return p.run(ctx, "claim", "WITH j AS (SELECT id FROM jobs WHERE id = $2 FOR UPDATE) UPDATE jobs SET state = 1 FROM j WHERE jobs.id = j.id")
	})
}
