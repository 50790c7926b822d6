package gosql

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsqllint/dsqllint/modconf"
)

// TestOtherDatabase decides a package's database from its files' imports
// and its directory, in a module that keeps PostgreSQL's driver and
// others'.
func TestOtherDatabase(t *testing.T) {
	root := t.TempDir()
	multi := &modconf.Settings{Root: root, ModulePath: "example.com/app",
		Requires: []string{"github.com/jackc/pgx/v5", "github.com/go-sql-driver/mysql", "modernc.org/sqlite"}}
	pgOnly := &modconf.Settings{Root: root, ModulePath: "example.com/app", Requires: []string{"github.com/jackc/pgx/v5"}}
	mysqlOnly := &modconf.Settings{Root: root, ModulePath: "example.com/app", Requires: []string{"github.com/go-sql-driver/mysql"}}
	file := func(name string, imports ...string) string {
		src := "package p\nimport (\n"
		for _, imp := range imports {
			src += "\t_ \"" + imp + "\"\n"
		}
		return name + "\x00" + src + ")\n"
	}
	for _, c := range []struct {
		name  string
		s     *modconf.Settings
		dir   string
		files []string
		want  string
	}{
		{"a MySQL driver", multi, "store/a", []string{file("a.go", "github.com/go-sql-driver/mysql")}, "MySQL"},
		{"a SQLite driver's package", multi, "store/a", []string{file("a.go", "modernc.org/sqlite/lib")}, "SQLite"},
		{"the module's SQLite package", multi, "cmd/x", []string{file("a.go", "example.com/app/store/sqlite")}, "SQLite"},
		{"a directory named for MySQL", multi, "store/mysql/schema", []string{file("a.go")}, "MySQL"},
		// Negatives.
		{"PostgreSQL's driver too", multi, "store/mysql", []string{file("a.go", "github.com/go-sql-driver/mysql", "github.com/jackc/pgx/v5/stdlib")}, ""},
		{"two databases: choosing the engine", multi, "cmd/migrate", []string{file("a.go", "github.com/go-sql-driver/mysql", "example.com/app/store/sqlite")}, ""},
		{"a module package named for PostgreSQL", multi, "cmd/x", []string{file("a.go", "example.com/app/store/pgsql", "example.com/app/store/sqlite")}, ""},
		{"only a test runs on SQLite", multi, "store/a", []string{file("a.go"), file("a_test.go", "modernc.org/sqlite")}, ""},
		{"a module of PostgreSQL alone", pgOnly, "store/mysql", []string{file("a.go", "github.com/go-sql-driver/mysql")}, ""},
		{"a module of MySQL alone: the SQL it ports", mysqlOnly, "store/mysql", []string{file("a.go", "github.com/go-sql-driver/mysql")}, ""},
		{"a driver the module does not require", multi, "store/a", []string{file("a.go", "github.com/microsoft/go-mssqldb")}, ""},
	} {
		fset := token.NewFileSet()
		var files []*ast.File
		for _, f := range c.files {
			name, src, _ := strings.Cut(f, "\x00")
			af, err := parser.ParseFile(fset, filepath.Join(root, c.dir, name), src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, af)
		}
		if got := OtherDatabase(files, fset, c.s, requiredDatabases(c.s), filepath.Join(root, c.dir), false); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	// SQLite's driver alone, but branches that name PostgreSQL (Gogs').
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, filepath.Join(root, "store/a/a.go"), "package p\nimport _ \"modernc.org/sqlite\"\n", parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	for chooses, want := range map[bool]string{false: "SQLite", true: ""} {
		if got := OtherDatabase([]*ast.File{af}, fset, multi, requiredDatabases(multi), filepath.Join(root, "store/a"), chooses); got != want {
			t.Errorf("SQLite's driver, a branch for PostgreSQL %v: got %q, want %q", chooses, got, want)
		}
	}
}

// TestOtherDatabaseFiles leaves out a file named for another database
// beside PostgreSQL's or a shared one.
func TestOtherDatabaseFiles(t *testing.T) {
	multi := &modconf.Settings{Requires: []string{"github.com/lib/pq", "github.com/mattn/go-sqlite3"}}
	got := otherDatabaseFiles(requiredDatabases(multi), []string{"/m/store.go", "/m/store_sqlite.go", "/m/store_sqlite_test.go", "/m/sqlite.go", "/m/postgres.go", "/m/mysql.go", "/m/sqlitecache.go"})
	want := map[string]string{"/m/store_sqlite.go": "SQLite", "/m/sqlite.go": "SQLite"}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
	if got := otherDatabaseFiles(requiredDatabases(&modconf.Settings{Requires: []string{"github.com/mattn/go-sqlite3"}}), []string{"/m/store.go", "/m/store_sqlite.go"}); got != nil {
		t.Errorf("a module of SQLite alone: got %v", got)
	}
}
