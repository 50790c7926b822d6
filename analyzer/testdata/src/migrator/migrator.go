// Package migrator migrates with tools that lock with advisory locks.
package migrator

import (
	_ "github.com/golang-migrate/migrate/v4/database/postgres" // want `DSQL007 explicit-lock: golang-migrate's PostgreSQL driver takes pg_advisory_lock around every migration run and records the version with TRUNCATE`
	_ "github.com/golang-migrate/migrate/v4/source/file"

	"github.com/jackc/tern/v2/migrate" // want `DSQL007 explicit-lock: tern's Migrator takes pg_advisory_lock around every migration run`
	"github.com/pressly/goose/v3/lock" // want `DSQL007 explicit-lock: goose's PostgreSQL session locker takes pg_try_advisory_lock before migrating`
)

func locker() (lock.SessionLocker, error) { return lock.NewPostgresSessionLocker() }

func migrator() (*migrate.Migrator, error) { return migrate.NewMigrator(nil, nil, "schema_version") }
