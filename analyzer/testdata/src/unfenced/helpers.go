package unfenced

import (
	"context"
	"database/sql"

	"github.com/dsqllint/dsqllint/runtime/occ"
)

type txKey struct{}

// The transaction travels in the context: the caller locks the job row,
// then a helper writes it by key. The lock fences the write.
func runJob(ctx context.Context, db *sql.DB, id int64) error {
	return occ.RunTxWithRetryVoid(ctx, db, func(tx *sql.Tx) error {
		ctx := context.WithValue(ctx, txKey{}, tx)
		if _, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
		return finishJob(ctx, id)
	})
}

func finishJob(ctx context.Context, id int64) error {
	tx := ctx.Value(txKey{}).(*sql.Tx)
	if _, err := tx.ExecContext(ctx, "UPDATE jobs SET status = 'done', finished_at = now() WHERE id = $1", id); err != nil {
		return err
	}
	return archiveJob(ctx, tx, id)
}

// Two calls down from the lock.
func archiveJob(ctx context.Context, tx *sql.Tx, id int64) error {
	_, err := tx.ExecContext(ctx, "DELETE FROM jobs WHERE id = $1", id)
	return err
}

// Negative twin: a helper one of whose callers writes without the lock.
func retryJob(ctx context.Context, db *sql.DB, id int64) error {
	return occ.RunTxWithRetryVoid(ctx, db, func(tx *sql.Tx) error {
		ctx := context.WithValue(ctx, txKey{}, tx)
		if _, err := tx.ExecContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
		return requeueJob(ctx, id)
	})
}

func forceRequeue(ctx context.Context, id int64) error { return requeueJob(ctx, id) }

func requeueJob(ctx context.Context, id int64) error {
	tx := ctx.Value(txKey{}).(*sql.Tx)
	_, err := tx.ExecContext(ctx, "UPDATE jobs SET status = 'pending' WHERE id = $1", id) // want `DSQL003 unfenced-write: status is compare-and-set: helpers.go:59 compare-and-sets status; this UPDATE changes status by the row's key without comparing it`
	return err
}

// Jobs move between states by compare-and-swap, so a write of the state
// needs the lock; a delete wins over an edit by design and is quiet.
const claimJob = "UPDATE jobs SET status = 'running' WHERE id = $1 AND status = 'pending'"

func forceDrop(ctx context.Context, tx *sql.Tx, id int64) error { return dropJob(ctx, tx, id) }

func dropJob(ctx context.Context, tx *sql.Tx, id int64) error {
	_, err := tx.ExecContext(ctx, "DELETE FROM jobs WHERE id = $1 AND queue = 'default'", id)
	return err
}
