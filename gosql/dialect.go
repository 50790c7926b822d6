package gosql

import (
	"go/ast"
	"go/token"
	"maps"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dsqllint/dsqllint/catalog"
	"github.com/dsqllint/dsqllint/modconf"
)

// A module that keeps a backend per database (a PostgreSQL store beside
// a MySQL and a SQLite one: kine's drivers, OpenFGA's and SpiceDB's
// stores) ports its PostgreSQL backend to DSQL; the others' SQL never
// runs there, however much of it parses as PostgreSQL. The driver a
// package imports says which database its SQL is for.

// databaseDrivers are the Go SQL drivers (module or package path
// prefixes), and the database each speaks.
var databaseDrivers = []struct{ prefix, db string }{
	{"github.com/jackc/pgx", "PostgreSQL"}, {"github.com/jackc/pgconn", "PostgreSQL"}, {"github.com/lib/pq", "PostgreSQL"},
	{"gorm.io/driver/postgres", "PostgreSQL"}, {"github.com/go-pg/pg", "PostgreSQL"}, {"github.com/uptrace/bun/driver/pgdriver", "PostgreSQL"},
	{"github.com/uptrace/bun/dialect/pgdialect", "PostgreSQL"}, {"github.com/cockroachdb/cockroach-go", "PostgreSQL"},
	{"github.com/go-sql-driver/mysql", "MySQL"}, {"gorm.io/driver/mysql", "MySQL"}, {"github.com/uptrace/bun/dialect/mysqldialect", "MySQL"},
	{"github.com/ziutek/mymysql", "MySQL"}, {"github.com/go-mysql-org/go-mysql", "MySQL"},
	{"github.com/mattn/go-sqlite3", "SQLite"}, {"modernc.org/sqlite", "SQLite"}, {"github.com/glebarez/go-sqlite", "SQLite"},
	{"github.com/glebarez/sqlite", "SQLite"}, {"gorm.io/driver/sqlite", "SQLite"}, {"github.com/ncruces/go-sqlite3", "SQLite"},
	{"zombiezen.com/go/sqlite", "SQLite"}, {"crawshaw.io/sqlite", "SQLite"}, {"github.com/tursodatabase/libsql-client-go", "SQLite"},
	{"github.com/uptrace/bun/dialect/sqlitedialect", "SQLite"}, {"github.com/uptrace/bun/driver/sqliteshim", "SQLite"},
	{"github.com/microsoft/go-mssqldb", "SQL Server"}, {"github.com/denisenkom/go-mssqldb", "SQL Server"}, {"gorm.io/driver/sqlserver", "SQL Server"},
	{"github.com/sijms/go-ora", "Oracle"}, {"github.com/godror/godror", "Oracle"}, {"github.com/mattn/go-oci8", "Oracle"},
}

// driverDatabase returns the database whose driver path is (a module or
// one of its packages), "" for none.
func driverDatabase(path string) string {
	for _, d := range databaseDrivers {
		if underPath(path, d.prefix) {
			return d.db
		}
	}
	return ""
}

// OtherDatabase returns the database other than PostgreSQL whose SQL a
// package holds, where its module keeps a PostgreSQL backend too (its
// go.mod requires a PostgreSQL driver and that database's directly): the
// one database the package speaks to, by the drivers and the module's
// packages named for a database that its files other than tests import,
// or else by its own directory's name (internal/datastore/mysql/schema).
// "" when its SQL is PostgreSQL's, when it speaks to several (a migration
// command choosing the engine), or when its module has one database's
// SQL: the SQL it ports. A test that runs a store on SQLite says nothing
// of the store. choosesPostgres says the package's own branches name
// PostgreSQL (case "postgres":, conf.UsePostgreSQL): it speaks to it too,
// whatever the one driver it imports (Gogs', Flyte's: SQLite's).
func OtherDatabase(files []*ast.File, fset *token.FileSet, s *modconf.Settings, required map[string]bool, dir string, choosesPostgres bool) string {
	if required == nil {
		return ""
	}
	speaks := map[string]bool{}
	if choosesPostgres {
		speaks["PostgreSQL"] = true
	}
	for _, f := range files {
		if strings.HasSuffix(fset.File(f.Pos()).Name(), "_test.go") {
			continue
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				continue
			}
			if db := driverDatabase(p); db != "" {
				speaks[db] = true
			} else if rel, ok := strings.CutPrefix(p, s.ModulePath+"/"); ok && s.ModulePath != "" {
				if db := catalog.DatabaseNamed(rel); db != "" {
					speaks[db] = true
				}
			}
		}
	}
	if len(speaks) == 0 && s.Root != "" {
		if rel, err := filepath.Rel(s.Root, dir); err == nil && filepath.IsLocal(rel) {
			if db := catalog.DatabaseNamed(filepath.ToSlash(rel)); db != "" {
				speaks[db] = true
			}
		}
	}
	if len(speaks) != 1 {
		return ""
	}
	for db := range speaks {
		if db != "PostgreSQL" && required[db] {
			return db
		}
	}
	return ""
}

// requiredDatabases are the databases whose drivers the module requires
// directly, nil unless PostgreSQL's and another's: only such a module
// keeps another database's backend beside the one it ports.
func requiredDatabases(s *modconf.Settings) map[string]bool {
	required := map[string]bool{}
	for _, r := range s.Requires {
		if db := driverDatabase(r); db != "" {
			required[db] = true
		}
	}
	if !required["PostgreSQL"] || len(required) < 2 {
		return nil
	}
	return required
}

// otherDatabaseFiles returns the package's files named for a database
// other than PostgreSQL beside a file of the same name for PostgreSQL or
// for none (catalog.OtherCopies), in a module that keeps both databases'
// drivers: one backend's file in a package of several.
func otherDatabaseFiles(required map[string]bool, names []string) map[string]string {
	if required == nil {
		return nil
	}
	copies := catalog.OtherCopies(names)
	maps.DeleteFunc(copies, func(_, db string) bool { return !required[db] })
	if len(copies) == 0 {
		return nil
	}
	return copies
}
