package lockretry

import (
	"context"
	"database/sql"
	"errors"

	"github.com/dsqllint/dsqllint/runtime/occ"
	"github.com/dsqllint/dsqllint/runtime/occpgx"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A job fetch that locks in a CTE and writes, as one statement on a pool:
// DSQL runs it as its own transaction, and a concurrent fetch that commits
// first makes it fail at commit.
const fetchJobs = `WITH next AS (SELECT id FROM jobs WHERE state = 'available' ORDER BY id LIMIT $1 FOR UPDATE)
UPDATE jobs SET state = 'running', attempt = jobs.attempt + 1
FROM next WHERE jobs.id = next.id
RETURNING jobs.id`

func fetchOnPool(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := pool.Exec(ctx, "WITH next AS (SELECT id FROM jobs WHERE state = 'available' ORDER BY id LIMIT $1 FOR UPDATE) UPDATE jobs SET state = 'running' FROM next WHERE jobs.id = next.id", 10) // want `DSQL005 lock-without-retry: this statement locks FOR UPDATE outside any transaction, so Aurora DSQL runs it as a transaction of its own, .* occpgx.ExecWithRetry\(ctx, pool, query, args...\)`
	return err
}

func fetchOnDB(ctx context.Context, db *sql.DB) (*sql.Rows, error) {
	return db.QueryContext(ctx, "WITH next AS (SELECT id FROM jobs WHERE state = 'available' ORDER BY id LIMIT $1 FOR UPDATE) UPDATE jobs SET state = 'running' FROM next WHERE jobs.id = next.id RETURNING jobs.id", 10) // want `DSQL005 lock-without-retry: this statement locks FOR UPDATE outside any transaction, .* occ.RunTxWithRetry\(ctx, db, func\(tx \*sql.Tx\)`
}

func cancelOnConn(ctx context.Context, conn *pgx.Conn, id int64) error {
	_, err := conn.Exec(ctx, "WITH j AS (SELECT id FROM jobs WHERE id = $1 FOR UPDATE) UPDATE jobs SET state = 'cancelled' FROM j WHERE jobs.id = j.id", id) // want `DSQL005 lock-without-retry: this statement locks FOR UPDATE outside`
	return err
}

// Negatives: the same statement under the runtime's retry, in a closure a
// retry helper re-runs, in a loop that retries on 40001, and in a
// transaction (whose own Begin DSQL005 judges); and a statement that locks
// nothing.
func fetchRetried(ctx context.Context, db *sql.DB, pool *pgxpool.Pool) error {
	if _, err := occ.ExecWithRetry(ctx, db, fetchJobs, 10); err != nil {
		return err
	}
	_, err := occpgx.ExecWithRetry(ctx, pool, fetchJobs, 10)
	return err
}

func fetchInHelper(ctx context.Context, db *sql.DB) error {
	return occ.RunTxWithRetryVoid(ctx, db, func(tx *sql.Tx) error {
		_, err := db.ExecContext(ctx, fetchJobs, 10)
		return err
	})
}

var errSerialization = errors.New("40001")

func fetchInLoop(ctx context.Context, db *sql.DB) error {
	for {
		_, err := db.ExecContext(ctx, fetchJobs, 10)
		if !errors.Is(err, errSerialization) {
			return err
		}
	}
}

func fetchInTx(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, fetchJobs, 10)
	return err
}

func jobState(ctx context.Context, pool *pgxpool.Pool, id int64) (string, error) {
	var state string
	err := pool.QueryRow(ctx, "SELECT state FROM jobs WHERE id = $1", id).Scan(&state)
	return state, err
}
