package analyzer_test

import "testing"

// TestOtherDialect: a module that keeps its migrations once per database
// (migrations/postgres, migrations/mysql, migrations/sqlite, the same
// statements in each) is linted on the PostgreSQL copy only; a module
// whose only migrations are named for MySQL is linted on them, since that
// is the SQL it ports. The `-- want` markers say where findings belong.
func TestOtherDialect(t *testing.T) {
	for _, dir := range []string{"testdata/dialectmod", "testdata/dialectonlymod"} {
		fset, diags, _ := runPackages(t, dir)
		checkModuleWants(t, dir, fset, diags)
	}
}
