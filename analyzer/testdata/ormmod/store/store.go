// Package store locks rows through an ORM and a query builder, in ways no
// query call dsqllint knows runs: each lock is judged where it is
// written. The module retries elsewhere (withRetry), so only the locks no
// retry surrounds are reported.
package store

import (
	"context"
	"errors"
	"strings"

	sq "github.com/Masterminds/squirrel"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

type Job struct{ ID int64 }

// ClaimRaw locks through the ORM's raw query, in the ORM's own
// transaction, which nothing re-runs.
func ClaimRaw(db *gorm.DB) (int64, error) {
	var id int64
	err := db.Transaction(func(tx *gorm.DB) error {
		return tx.Raw("SELECT id FROM jobs WHERE id = ? FOR UPDATE", 1).Scan(&id).Error // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs where dsqllint cannot follow it`
	})
	return id, err
}

// LockORM locks with the ORM's locking clause.
func LockORM(db *gorm.DB) (Job, error) {
	var j Job
	err := db.Clauses(clause.Locking{Strength: "UPDATE"}).First(&j).Error // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs where dsqllint cannot follow it`
	return j, err
}

// LockRows locks with a builder whose predicate is known only at run
// time, run by a wrapper dsqllint does not know.
func LockRows(keys []string) error {
	b := sq.Select("id").From("tuples").Where(sq.Expr("key IN ("+strings.Repeat("?,", len(keys))+")", keys)).Suffix("FOR UPDATE") // want `DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs where dsqllint cannot follow it`
	return run(b)
}

func run(b sq.Sqlizer) error {
	_, _, err := b.ToSql()
	return err
}

// The same three, each run only inside the module's retry on 40001.

func claimRawOnce(db *gorm.DB) (int64, error) {
	var id int64
	err := db.Transaction(func(tx *gorm.DB) error {
		return tx.Raw("SELECT id FROM jobs WHERE id = ? AND 1 = 1 FOR UPDATE", 1).Scan(&id).Error
	})
	return id, err
}

func lockORMOnce(db *gorm.DB) (Job, error) {
	var j Job
	err := db.Clauses(clause.Locking{Strength: "UPDATE", Table: clause.Table{Name: "jobs"}}).First(&j).Error
	return j, err
}

func lockRowsOnce(keys []string) error {
	b := sq.Select("id").From("tuples").Where(sq.Expr("key IN ("+strings.Repeat("?,", len(keys))+")", keys)).Suffix(" FOR UPDATE")
	return run(b)
}

// Work runs them inside the retry.
func Work(ctx context.Context, db *gorm.DB, keys []string) error {
	return withRetry(ctx, func() error {
		if _, err := claimRawOnce(db); err != nil {
			return err
		}
		if _, err := lockORMOnce(db); err != nil {
			return err
		}
		return lockRowsOnce(keys)
	})
}

var errConflict = errors.New("ERROR: could not serialize access (SQLSTATE 40001)")

// withRetry re-runs fn while it fails with a serialization failure.
func withRetry(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		if !errors.Is(err, errConflict) {
			return err
		}
	}
}
