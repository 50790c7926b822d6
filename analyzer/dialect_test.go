package analyzer_test

import "testing"

// TestOtherDialect: a module that keeps its migrations once per database
// (migrations/postgres, migrations/mysql, migrations/sqlite, the same
// statements in each) is linted on the PostgreSQL copy only; a module
// whose only migrations are named for MySQL is linted on them, since that
// is the SQL it ports. The `-- want` markers say where findings belong.
//
// The same holds for Go: in a module that requires a PostgreSQL driver and
// another database's (backendsmod), a package that speaks only to the
// other one (its driver, or a directory named for it) and a file named for
// it beside PostgreSQL's are left out, while a package choosing between
// engines is checked; a module of MySQL alone (mysqlonlymod) is checked.
func TestOtherDialect(t *testing.T) {
	for _, dir := range []string{"testdata/dialectmod", "testdata/dialectonlymod", "testdata/backendsmod", "testdata/mysqlonlymod"} {
		fset, diags, _ := runPackages(t, dir)
		checkModuleWants(t, dir, fset, diags)
	}
}

// TestMigrationRunner: a module that requires golang-migrate runs each file
// named as its migrations (000001_items.up.sql) as one Exec, one implicit
// transaction; the same files in a module that does not require it, and a
// file named otherwise, are judged statement by statement.
func TestMigrationRunner(t *testing.T) {
	for _, dir := range []string{"testdata/migratemod", "testdata/plainmigratemod"} {
		fset, diags, _ := runPackages(t, dir)
		checkModuleWants(t, dir, fset, diags)
	}
}
