package catalog

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/dsqllint/dsqllint/sqlcconf"
)

// Source says where a module's schema was found.
type Source struct {
	// From is "schema setting", "sqlc configuration" (with the file) or
	// "migration directories"; empty when no schema was found.
	From string
	// Files are the schema files in replay order.
	Files []string
	// Sqlc are the SQL packages of the module's sqlc configurations.
	Sqlc []sqlcconf.Package
	// OtherDialect are the .sql files and directories that hold another
	// database's SQL (otherDialectPaths).
	OtherDialect []string
}

// Discover finds the schema of the module rooted at root, in this order:
//
//  1. patterns, the schema setting: files, directories (their .sql files,
//     recursively) and globs, relative to root; a pg_dump --schema-only
//     file is one such file;
//  2. the schema paths of sqlc configuration (sqlc.yaml, sqlc.yml,
//     sqlc.json) anywhere in the module;
//  3. the directories of .sql files that create tables (migrations/,
//     db/migrations/, schema/, sql/, ...), every .sql file in them.
//
// Only the first that yields files is used. Down migrations are left out
// and files are put in migration order. Directories named for another
// database (mysql, sqlite, ...) are used only when nothing else is found.
// A pattern that matches nothing is an error, so that a mistyped setting
// does not silently fall back to the name-based rules.
func Discover(root string, patterns []string) (Source, error) {
	w := walkModule(root)
	src := Source{Sqlc: w.sqlcPackages(), OtherDialect: w.otherDialectPaths()}
	if len(patterns) > 0 {
		var files []string
		for _, p := range patterns {
			matched, err := expand(root, p)
			if err != nil {
				return Source{}, err
			}
			files = append(files, matched...)
		}
		src.From, src.Files = "schema setting", dedupe(files)
		return src, nil
	}
	if files, cfg := w.sqlcSchema(src.Sqlc); len(files) > 0 {
		src.From, src.Files = "sqlc configuration "+cfg, files
		return src, nil
	}
	if files := w.migrationDirs(); len(files) > 0 {
		src.From, src.Files = "migration directories", files
	}
	return src, nil
}

// expand resolves one entry of the schema setting.
func expand(root, p string) ([]string, error) {
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(root, p)
	}
	var matches []string
	if strings.ContainsAny(p, "*?[") {
		m, err := filepath.Glob(full)
		if err != nil {
			return nil, fmt.Errorf("schema: bad pattern %q: %v", p, err)
		}
		matches = m
	} else {
		matches = []string{full}
	}
	var files []string
	for _, m := range matches {
		st, err := os.Stat(m)
		if err != nil {
			return nil, fmt.Errorf("schema: %s: no such file or directory", p)
		}
		if !st.IsDir() {
			files = append(files, m)
			continue
		}
		var inDir []string
		_ = filepath.WalkDir(m, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && isSQL(path) && !IsDown(path) {
				inDir = append(inDir, path)
			}
			return nil
		})
		Order(inDir)
		files = append(files, inDir...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("schema: %s matched no .sql file", p)
	}
	return files, nil
}

func isSQL(path string) bool { return strings.EqualFold(filepath.Ext(path), ".sql") }

func dedupe(files []string) []string {
	seen := map[string]bool{}
	out := files[:0]
	for _, f := range files {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// moduleFiles are the .sql files and sqlc configurations of a module.
type moduleFiles struct {
	root      string
	sql, sqlc []string
}

// rel names path relative to the module root.
func (m moduleFiles) rel(path string) string {
	if r, err := filepath.Rel(m.root, path); err == nil {
		return filepath.ToSlash(r)
	}
	return path
}

// walkModule lists a module's .sql files and sqlc configurations, leaving
// out what the go command leaves out of a module (vendor, testdata,
// directories starting with . or _, nested modules) and node_modules.
func walkModule(root string) moduleFiles {
	m := moduleFiles{root: root}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if path == root {
				return nil
			}
			if name == "vendor" || name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		switch {
		case isSQL(path):
			m.sql = append(m.sql, path)
		case slices.Contains(sqlcconf.Names, name):
			m.sqlc = append(m.sqlc, path)
		}
		return nil
	})
	return m
}

// sqlcPackages reads the module's sqlc configurations; one sqlc itself
// would reject is skipped, for sqlc reports it better.
func (m moduleFiles) sqlcPackages() []sqlcconf.Package {
	var pkgs []sqlcconf.Package
	for _, cfg := range m.sqlc {
		if got, err := sqlcconf.Read(cfg); err == nil {
			pkgs = append(pkgs, got...)
		}
	}
	return pkgs
}

// sqlcSchema returns the schema files the module's sqlc configurations
// name (PostgreSQL engines only, when there is one) and the configuration
// files used.
func (m moduleFiles) sqlcSchema(pkgs []sqlcconf.Package) ([]string, string) {
	postgres := slices.ContainsFunc(pkgs, sqlcconf.Package.Postgres)
	var files, used []string
	for _, p := range pkgs {
		if postgres && !p.Postgres() {
			continue
		}
		for _, s := range p.Schema {
			if got, err := expand("", s); err == nil {
				files = append(files, got...)
				if rel := m.rel(p.Config); !slices.Contains(used, rel) {
					used = append(used, rel)
				}
			}
		}
	}
	if len(files) == 0 {
		return nil, ""
	}
	return dedupe(files), strings.Join(used, ", ")
}

// migrationDirs returns every .sql file (down migrations left out) of the
// directories holding a .sql file that creates a table, in migration order.
func (m moduleFiles) migrationDirs() []string {
	dirs := map[string]bool{}
	for _, f := range m.sql {
		if dirs[filepath.Dir(f)] || IsDown(f) {
			continue
		}
		if data, err := os.ReadFile(f); err == nil && createsTable(data) {
			dirs[filepath.Dir(f)] = true
		}
	}
	// Migrations kept one directory per version (v1.0/, v1.1/, ...): the
	// versions after the first may only alter tables.
	versioned := map[string]bool{}
	for d := range dirs {
		if versionName(filepath.Base(d)) {
			versioned[filepath.Dir(d)] = true
		}
	}
	for _, f := range m.sql {
		if d := filepath.Dir(f); versioned[filepath.Dir(d)] && versionName(filepath.Base(d)) {
			dirs[d] = true
		}
	}
	postgres := false
	for d := range dirs {
		postgres = postgres || !otherDialect(m.rel(d))
	}
	copies := OtherCopies(m.sql) // other databases' copies (pop's): PostgreSQL runs its own
	var files []string
	for _, f := range m.sql {
		d := filepath.Dir(f)
		if dirs[d] && !IsDown(f) && (!postgres || !otherDialect(m.rel(d))) && copies[f] == "" {
			files = append(files, f)
		}
	}
	Order(files)
	return files
}

// versionName reports a directory named for a version: 1, 001, v1.10, V2_1.
func versionName(base string) bool {
	if base != "" && (base[0] == 'v' || base[0] == 'V') {
		base = base[1:]
	}
	return digits(base) > 0
}

var createTable = []byte("create table")

// createsTable reports whether a file's text says CREATE TABLE (any case,
// one space).
func createsTable(data []byte) bool {
	for i := 0; i+len(createTable) <= len(data); i++ {
		j := bytes.IndexByte(data[i:], createTable[0]|0x20)
		k := bytes.IndexByte(data[i:], createTable[0]&^0x20)
		switch {
		case j < 0 && k < 0:
			return false
		case j < 0 || (k >= 0 && k < j):
			j = k
		}
		i += j
		if i+len(createTable) <= len(data) && bytes.EqualFold(data[i:i+len(createTable)], createTable) {
			return true
		}
	}
	return false
}

// otherDialects are words of a path that name a database whose SQL is
// not PostgreSQL's, and the database each names.
var otherDialects = map[string]string{"mysql": "MySQL", "mariadb": "MySQL", "sqlite": "SQLite", "mssql": "SQL Server", "sqlserver": "SQL Server",
	"oracle": "Oracle", "clickhouse": "ClickHouse", "cassandra": "Cassandra", "spanner": "Spanner", "snowflake": "Snowflake", "bigquery": "BigQuery",
	"cockroach": "CockroachDB", "cockroachdb": "CockroachDB", "crdb": "CockroachDB"}

// DatabaseNamed returns the database a path names with one of its words
// (its letters between other characters: mysql_schema, sqlite3, pgsql),
// "" when it names none.
func DatabaseNamed(rel string) string {
	for _, w := range pathWords(rel) {
		if db := otherDialects[w]; db != "" {
			return db
		}
		if postgresWords[w] {
			return "PostgreSQL"
		}
	}
	return ""
}

// NamedIn returns the database a name written as one word names: the
// whole word ("sqlite3", "cockroachdb", "postgres") or, where whole is
// false, any part of it (DBTypeMySQL, KindSQLite); "" when none. Parts
// are only other databases' names: "pg" is part of too many words.
func NamedIn(name string, whole bool) string {
	w := strings.TrimRight(strings.ToLower(name), "0123456789")
	if db := otherDialects[w]; db != "" {
		return db
	}
	if postgresWords[w] {
		return "PostgreSQL"
	}
	if !whole {
		for word, db := range otherDialects {
			if strings.Contains(w, word) {
				return db
			}
		}
	}
	return ""
}

// otherDatabase returns the database other than PostgreSQL a path names,
// "" when it names none.
func otherDatabase(rel string) string {
	for _, w := range pathWords(rel) {
		if db := otherDialects[w]; db != "" {
			return db
		}
	}
	return ""
}

// otherDialect reports a path naming a database other than PostgreSQL.
func otherDialect(rel string) bool { return otherDatabase(rel) != "" }

// pathWords are the runs of letters of a path, in lower case.
func pathWords(rel string) []string {
	return strings.FieldsFunc(strings.ToLower(rel), func(r rune) bool { return r < 'a' || r > 'z' })
}

// otherDialectPaths returns the files and directories whose name says
// they hold another database's SQL where the module keeps a PostgreSQL
// copy too: a directory named for it (migrations/mysql) whose parent also
// holds SQL whose path names no other database, a file named for it
// beside the same name without it (schema.sqlite.sql beside schema.sql or
// schema.postgres.sql). A module that keeps its SQL once per database
// ports the PostgreSQL copy; a module whose SQL is all named for another
// database keeps it: that is the SQL it ports. A migration that only
// mentions one (007_sqlite_jsonb_cleanup.sql) is no copy.
func (m moduleFiles) otherDialectPaths() []string {
	var out []string
	seen := map[string]bool{}
	postgresUnder := map[string]bool{} // by parent, computed once
	copies := OtherCopies(m.sql)
	for _, f := range m.sql {
		parts := strings.Split(m.rel(f), "/")
		for i, part := range parts[:len(parts)-1] {
			if !otherDialect(part) {
				continue
			}
			at := filepath.Join(m.root, filepath.FromSlash(strings.Join(parts[:i+1], "/")))
			if seen[at] {
				break
			}
			seen[at] = true
			parent := strings.Join(parts[:i], "/")
			pg, known := postgresUnder[parent]
			if !known {
				pg = m.postgresUnder(parent)
				postgresUnder[parent] = pg
			}
			if pg {
				out = append(out, at)
			}
			break
		}
		if copies[f] != "" && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// postgresUnder reports a .sql file below the module directory parent
// ("" for the root) whose path names no other database.
func (m moduleFiles) postgresUnder(parent string) bool {
	for _, f := range m.sql {
		rel := m.rel(f)
		if (parent == "" || strings.HasPrefix(rel, parent+"/")) && !otherDialect(rel) {
			return true
		}
	}
	return false
}

// OtherCopies returns, of files, those named for a database other than
// PostgreSQL beside a file of the same name for PostgreSQL or for none,
// in the same directory (schema.sqlite.sql or mysql_schema.sql beside
// schema.sql or schema.postgres.sql; store_mysql.go beside
// store_postgres.go), and the database each is for.
func OtherCopies(files []string) map[string]string {
	out, pop := popCopies(files)
	shared := map[string]bool{} // directory and CopyName of the files for PostgreSQL or none
	for _, f := range files {
		if base := filepath.Base(f); !pop[f] && !otherDialect(base) {
			shared[filepath.Join(filepath.Dir(f), CopyName(base))] = true
		}
	}
	for _, f := range files {
		base := filepath.Base(f)
		if db := otherDatabase(base); !pop[f] && db != "" && shared[filepath.Join(filepath.Dir(f), CopyName(base))] {
			if out == nil {
				out = map[string]string{}
			}
			out[f] = db
		}
	}
	return out
}

// MigrationName is what a migration file's name says where golang-migrate
// and pop name it: NNN_title.up.sql, and pop's NNN_title[.database]
// [.autocommit].up.sql. The title's own words (initial_sqlite) name no
// database.
type MigrationName struct {
	Version string
	// DB is the database the file is for, as pop spells it ("postgres",
	// "mysql"); "" for every database.
	DB string
	// Autocommit marks pop's file run without a transaction.
	Autocommit, Down bool
}

var migrationName = regexp.MustCompile(`^([0-9]+)_[^.]+\.(?:(postgres|cockroach|mysql|sqlite3|sqlite|mariadb)\.)?(autocommit\.)?(up|down)\.sql$`)

// ParseMigrationName reads a migration file's base name.
func ParseMigrationName(base string) (MigrationName, bool) {
	m := migrationName.FindStringSubmatch(base)
	if m == nil {
		return MigrationName{}, false
	}
	return MigrationName{Version: m[1], DB: m[2], Autocommit: m[3] != "", Down: m[4] == "down"}, true
}

// popCopies returns the pop migrations PostgreSQL does not run, and which
// files are pop's. pop runs, of a version's migrations in one direction,
// the one for the database, else the one for every database: a copy for
// another database, beside one PostgreSQL runs, is that database's; the
// copy for every database, beside PostgreSQL's own, runs on the others.
// A version with only another database's files runs on PostgreSQL
// nothing, where the directory's other versions show PostgreSQL's path
// (Ory Kratos: 239 files for SQLite, CockroachDB or MySQL alone); in a
// directory of one other database's files only, they are the schema
// being ported.
func popCopies(files []string) (copies map[string]string, pop map[string]bool) {
	type key struct {
		dir, version string
		down         bool
	}
	type migration struct {
		file, db string
	}
	groups := map[key][]migration{}
	postgres := map[string]bool{} // directories with files PostgreSQL runs
	for _, f := range files {
		m, ok := ParseMigrationName(filepath.Base(f))
		if !ok {
			continue
		}
		if pop == nil {
			pop = map[string]bool{}
		}
		pop[f] = true
		k := key{filepath.Dir(f), m.Version, m.Down}
		groups[k] = append(groups[k], migration{f, m.DB})
		if m.DB == "postgres" || m.DB == "" {
			postgres[k.dir] = true
		}
	}
	for k, g := range groups {
		own := slices.ContainsFunc(g, func(m migration) bool { return m.db == "postgres" })
		any := slices.ContainsFunc(g, func(m migration) bool { return m.db == "" })
		for _, m := range g {
			db := DatabaseNamed(m.db)
			switch {
			case m.db == "" && own:
				db = "every other database" // PostgreSQL runs its own copy
			case m.db == "postgres", m.db == "", !own && !any && !postgres[k.dir]:
				continue // what PostgreSQL runs, or the only database's
			}
			if copies == nil {
				copies = map[string]string{}
			}
			copies[m.file] = db
		}
	}
	return copies, pop
}

// CopyName is what a file's name shares with its copies for other
// databases: its words without its extension and those naming a database
// ("schema" for mysql_schema.sql and schema.sql, "store" for
// store_sqlite.go and store_postgres.go).
func CopyName(base string) string {
	var out []string
	for _, w := range pathWords(strings.TrimSuffix(base, filepath.Ext(base))) {
		if otherDialects[w] == "" && !postgresWords[w] {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

var postgresWords = map[string]bool{"postgres": true, "postgresql": true, "pg": true, "pgsql": true, "psql": true}
