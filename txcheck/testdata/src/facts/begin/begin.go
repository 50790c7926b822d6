package begin // want package:`txflow\(begin\{passes:2 begins:2 closures:1 calls:3\}; lock\{stmts:1 locks:1 runs:1\}; retry\{retries:1 predicates:1\}\)`

// Package begin begins the transactions lock's statement runs in, one
// inside retry.Do and one outside: its fact carries its own summary (the
// Begins, the calls and the closure handed to Do) and those of the two
// packages it imports, which a package importing it joins.

import (
	"context"
	"database/sql"

	"facts/lock"
	"facts/retry"
)

// Retried claims a shard inside the retry helper.
func Retried(ctx context.Context, db *sql.DB, shard int) error {
	return retry.Do(func() error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := lock.Claim(ctx, tx, shard); err != nil {
			return err
		}
		return tx.Commit()
	})
}

// Once claims a shard with no retry around it.
func Once(ctx context.Context, db *sql.DB, shard int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := lock.Claim(ctx, tx, shard); err != nil {
		return err
	}
	return tx.Commit()
}
