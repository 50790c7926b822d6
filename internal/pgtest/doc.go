// Package pgtest runs a throwaway PostgreSQL server for integration tests:
// one server per test binary, started from TestMain on a Unix socket in a
// short temporary directory, a fresh database for each test, and everything
// stopped and deleted when the tests end.
//
// It uses the PostgreSQL server installed on the machine (Debian's postgresql
// package). When that is missing, tests that need a database fail with a
// message saying what to install; set DSQLLINT_NO_POSTGRES=1 to skip them
// instead.
//
// Use it as
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		db, err := sql.Open("pgx", pgtest.NewDatabase(t))
//		...
//	}
package pgtest
