package txcheck

import (
	"strconv"
)

// lockingMigrators are the packages of migration tools that take a
// PostgreSQL advisory lock around a migration run, with what else of
// theirs Aurora DSQL refuses (checked against golang-migrate v4.19.1,
// goose v3.27.3 and tern v1.13.0 and v2.3.6). Importing one is choosing it: golang-migrate
// registers its database drivers by import, and goose's lock package is
// imported only to hand its session locker to a provider.
var lockingMigrators = map[string]string{
	"github.com/golang-migrate/migrate/v4/database/postgres": golangMigrate,
	"github.com/golang-migrate/migrate/v4/database/pgx":      golangMigrate + " (x-lock-strategy=table avoids the lock, not the TRUNCATE)",
	"github.com/golang-migrate/migrate/v4/database/pgx/v5":   golangMigrate,
	"github.com/jackc/tern/v2/migrate":                       tern,
	"github.com/jackc/tern/migrate":                          tern,
	"github.com/pressly/goose/v3/lock": "goose's PostgreSQL session locker takes pg_try_advisory_lock before migrating, which Aurora DSQL rejects " +
		"(0A000 function pg_try_advisory_lock not supported): drop the locker (goose.WithSessionLocker), and keep two processes from migrating at once another way (one deploy step, or a lease row)",
}

const tern = "tern's Migrator takes pg_advisory_lock around every migration run (Migrate, MigrateTo), which Aurora DSQL rejects " +
	"(0A000 function pg_advisory_lock not supported): migrate with a runner that does not lock, from one deploy step, or keep two processes from migrating at once another way (a lease row)"

const golangMigrate = "golang-migrate's PostgreSQL driver takes pg_advisory_lock around every migration run and records the version with TRUNCATE, both of which Aurora DSQL rejects " +
	"(0A000 function pg_advisory_lock not supported; unsupported statement: Truncate): use a driver made for Aurora DSQL (a dsql:// driver locks with a table and records the version with DELETE and INSERT)"

// lockingMigrator reports (DSQL007) the import of a migration tool's
// package that locks with an advisory lock.
func (c *checker) lockingMigrator() {
	for _, f := range c.Pass.Files {
		if c.InTest(f.Pos()) {
			continue
		}
		for _, spec := range f.Imports {
			path, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				continue
			}
			if msg, ok := lockingMigrators[path]; ok {
				c.reportGo("DSQL007", spec.Pos(), spec.End(), msg, nil)
			}
		}
	}
}
