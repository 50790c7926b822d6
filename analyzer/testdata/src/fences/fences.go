// Package fences holds one write per fence Aurora DSQL drops, and per
// protocol a write can bypass, each beside its negative twin.
package fences

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A trigger refused reopening a closed link; DSQL has no triggers.
const (
	reopenLink        = "UPDATE links SET active_range = $1 WHERE id = $2" // want `DSQL003 unfenced-write: links has trigger links_no_reopen \(migrations/000001_links.up.sql:17\), whose function refuse_reopen \(migrations/000001_links.up.sql:12\) refused this UPDATE when OLD.closed_reason IS NOT NULL; .* add .AND closed_reason IS NULL.`
	reopenOpenLink    = "UPDATE links SET active_range = $1 WHERE id = $2 AND closed_reason IS NULL"
	annotateLink      = "UPDATE links SET note = $1 WHERE id = $2" // a column the trigger does not watch
	renameUser        = "UPDATE users SET sso_id = $2 WHERE id = $1 AND NOT EXISTS (SELECT id FROM users WHERE sso_id = $2 AND id <> $1)"
	renameUserNoIndex = "UPDATE users SET nick = $2 WHERE id = $1 AND NOT EXISTS (SELECT id FROM users WHERE nick = $2 AND id <> $1)" // want `DSQL003 unfenced-write: this UPDATE is guarded by a subquery over the rows of users with the same nick, and no UNIQUE constraint holds what it checks`
)

// An advisory lock serialised the branch pointer's writers.
func moveBranch(ctx context.Context, tx *sql.Tx, repo, name, commit string) error {
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", repo); err != nil { // want `DSQL007`
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE branches SET commit_id = $1 WHERE repo = $2 AND name = $3", commit, repo, name) // want `DSQL003 unfenced-write: this UPDATE runs after pg_advisory_xact_lock at fences.go:24 .* add .AND commit_id = \$4.`
	return err
}

// Negative twin: the write compares the value it read.
func moveBranchCAS(ctx context.Context, tx *sql.Tx, repo, name, old, commit string) error {
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", repo); err != nil { // want `DSQL007`
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE branches SET commit_id = $1 WHERE repo = $2 AND name = $3 AND commit_id = $4", commit, repo, name, old)
	return err
}

// LOCK TABLE serialised the transfer.
func transfer(ctx context.Context, tx *sql.Tx, id int64, balance int64) error {
	if _, err := tx.ExecContext(ctx, "LOCK TABLE accounts IN EXCLUSIVE MODE"); err != nil { // want `DSQL007`
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE accounts SET balance = $1 WHERE id = $2", balance, id) // want `DSQL003 unfenced-write: this UPDATE runs after LOCK TABLE accounts at fences.go:42`
	return err
}

// Negative twin: no table lock, and no fence of accounts anywhere.
func deposit(ctx context.Context, tx *sql.Tx, id int64, balance int64) error {
	_, err := tx.ExecContext(ctx, "UPDATE accounts SET balance = $2 WHERE id = $1", id, balance)
	return err
}

// The shard's range_id read FOR SHARE fences the execution written after
// it (the seed's ReadLockShards); DSQL refuses FOR SHARE.
func readLockShard(ctx context.Context, tx *sql.Tx, shard int) (int64, error) {
	var rangeID int64
	err := tx.QueryRowContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE", shard).Scan(&rangeID) // want `DSQL001`
	return rangeID, err
}

func appendHistory(ctx context.Context, tx *sql.Tx, shard int, run string, next int64) error {
	if _, err := readLockShard(ctx, tx, shard); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE executions SET next_event_id = $1 WHERE shard_id = $2 AND run_id = $3", next, shard, run) // want `DSQL003 unfenced-write: this UPDATE runs in the transaction that read shards.range_id FOR SHARE at fences.go:59`
	return err
}

// Negative twin: the shard locked FOR UPDATE: a racing owner fails at
// COMMIT.
func appendHistoryLocked(ctx context.Context, tx *sql.Tx, shard int, run string, next int64) error {
	if _, err := tx.ExecContext(ctx, "SELECT range_id FROM shards WHERE shard_id = $1 FOR UPDATE", shard); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE executions SET next_event_id = $1 WHERE shard_id = $2 AND run_id = $3", next, shard, run)
	return err
}

// A last-admin check read in a transaction set SERIALIZABLE: on DSQL's
// snapshot isolation two removals both pass it.
func removeMember(ctx context.Context, db *sql.DB, group, user int64) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable}) // want `DSQL009`
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var admins int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM members WHERE group_id = $1 AND role = 'admin'", group).Scan(&admins); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM members WHERE group_id = $1 AND user_id = $2", group, user); err != nil { // want `DSQL003 unfenced-write: this DELETE is guarded by the read of members at fences.go:90 \(rows by group_id\), in a transaction set SERIALIZABLE at fences.go:84`
		return err
	}
	return tx.Commit()
}

// Negative twin: the transaction reads the very row it deletes.
func leaveGroup(ctx context.Context, db *sql.DB, group, user int64) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable}) // want `DSQL009`
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.QueryContext(ctx, "SELECT role FROM members WHERE group_id = $1 AND user_id = $2", group, user); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM members WHERE user_id = $2 AND group_id = $1", group, user); err != nil {
		return err
	}
	return tx.Commit()
}

// Negative twin: a singleton row picked by a constant, read and written
// by the same transaction (kine's compaction): the two writers conflict.
func compact(ctx context.Context, db *sql.DB, expected, target int64) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable}) // want `DSQL009`
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var cur int64
	if err := tx.QueryRowContext(ctx, "SELECT prev_revision FROM kine WHERE name = 'compact_rev_key'").Scan(&cur); err != nil || cur != expected {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE kine SET prev_revision = $1 WHERE name = 'compact_rev_key'", target); err != nil {
		return err
	}
	return tx.Commit()
}

// A setting picked by a constant guards a write of other rows: reported,
// with no key of the caller's to name.
func register(ctx context.Context, db *sql.DB, user int64) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable}) // want `DSQL009`
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var open bool
	if err := tx.QueryRowContext(ctx, "SELECT open FROM settings WHERE name = 'registration'").Scan(&open); err != nil || !open {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE members SET role = 'member' WHERE user_id = $1", user); err != nil { // want `DSQL003 unfenced-write: this UPDATE is guarded by the read of settings at fences.go:\d+, in a transaction set SERIALIZABLE at fences.go:\d+; .* have both update one row they share with a compare-and-swap`
		return err
	}
	return tx.Commit()
}

// The same guard in the closure pgx.BeginTxFunc runs in its SERIALIZABLE
// transaction, and its negative twin begun with the default level.
func removeMemberPgx(ctx context.Context, pool *pgxpool.Pool, group, user int64) error {
	return pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.Serializable}, func(tx pgx.Tx) error { // want `DSQL009`
		var admins int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM members WHERE group_id = $1 AND role = 'admin'", group).Scan(&admins); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "DELETE FROM members WHERE group_id = $1 AND user_id = $2", group, user) // want `DSQL003 unfenced-write: this DELETE is guarded by the read of members at fences.go:\d+ \(rows by group_id\), in a transaction set SERIALIZABLE`
		return err
	})
}

func removeMemberDefault(ctx context.Context, pool *pgxpool.Pool, group, user int64) error {
	return pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		var admins int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM members WHERE group_id = $1 AND role = 'admin'", group).Scan(&admins); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "DELETE FROM members WHERE group_id = $1 AND user_id = $2", group, user)
		return err
	})
}

// A row inserted earlier in the same function: no other process has it.
func createAndStart(ctx context.Context, tx *sql.Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, "INSERT INTO tasks (id, status) VALUES ($1, 'pending')", id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE tasks SET status = 'queued' WHERE id = $1", id)
	return err
}

// Negative twin: the same write with no insert first bypasses the
// state compare-and-swap.
func requeue(ctx context.Context, tx *sql.Tx, id int64) error {
	_, err := tx.ExecContext(ctx, "UPDATE tasks SET status = 'queued' WHERE id = $1 AND $1 > 0", id) // want `DSQL003 unfenced-write: status is compare-and-set: fences.go:191 compare-and-sets status`
	return err
}

const startTask = "UPDATE tasks SET status = 'running' WHERE id = $1 AND status = 'queued'"

// What .dsqllint.yaml declares: the scheduler's table, kept apart by a
// mutex outside the database.
const (
	moveSchedule     = "UPDATE schedules SET next_run = $1 WHERE id = $2" // want `DSQL003 unfenced-write: schedules's rows are claimed: .dsqllint.yaml:4 declares it coordinated \(a Redis mutex held by the scheduler\)`
	moveScheduleMine = "UPDATE schedules SET next_run = $1 WHERE id = $2 AND leader = $3"
	noteSchedule     = "UPDATE schedules SET note = $1 WHERE id = $2"
)

// Marks and filters are no fences: a soft delete set once, compared
// beside the key; a tenant's id scoping a write; an IS NOT NULL test.
const (
	softDeleteKey   = "UPDATE api_keys SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL"
	renameLiveKey   = "UPDATE api_keys SET name = $1 WHERE id = $2 AND deleted_at = $3"
	restoreKey      = "UPDATE api_keys SET deleted_at = $1 WHERE id = $2"
	scopedTitle     = "UPDATE docs SET title = $1 WHERE id = $2 AND tenant_id = $3"
	unscopedTitle   = "UPDATE docs SET title = $1 WHERE id = $2"
	changeEmail     = "UPDATE members SET email = $2 WHERE id = $1 AND email IS NOT NULL"
	importEmail     = "UPDATE members SET email = $2 WHERE id = $1"
	deleteVersioned = "DELETE FROM secrets WHERE id = $1"
	editSecret      = "UPDATE secrets SET data = $1, secret_version = secret_version + 1 WHERE id = $2 AND secret_version = $3"
)
