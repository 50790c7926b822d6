package lockretry

import (
	"context"
	"database/sql"

	retry "github.com/avast/retry-go/v4"
	backoff "github.com/cenkalti/backoff/v4"
	backoffv5 "github.com/cenkalti/backoff/v5"
)

// claimJob begins a transaction and locks a row in it.
func claimJob(ctx context.Context, db *sql.DB, id int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id).Err(); err != nil {
		return err
	}
	return tx.Commit()
}

// Quiet: cenkalti/backoff and avast/retry-go re-run the operation on
// every error, 40001 included; the operation begins the transaction.
func claimWithBackoff(ctx context.Context, db *sql.DB, id int) error {
	return backoff.Retry(func() error { return claimJob(ctx, db, id) }, backoff.NewExponentialBackOff())
}

func claimWithBackoffV5(ctx context.Context, db *sql.DB, id int) (int, error) {
	return backoffv5.Retry(ctx, func() (int, error) { return id, claimJob(ctx, db, id) })
}

func claimWithRetryGo(ctx context.Context, db *sql.DB, id int) error {
	return retry.Do(func() error { return claimJob(ctx, db, id) })
}

// Reported: the transaction is begun once; the retry re-runs only the
// statement, in a transaction DSQL has already doomed.
func claimStatementRetried(ctx context.Context, db *sql.DB, id int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := backoff.Retry(func() error {
		return tx.QueryRowContext(ctx, "SELECT id FROM jobs WHERE id = $1 FOR UPDATE", id).Err() // want `DSQL005 lock-without-retry`
	}, backoff.NewExponentialBackOff()); err != nil {
		return err
	}
	return tx.Commit()
}
