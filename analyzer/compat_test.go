package analyzer_test

import (
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/dsqllint/dsqllint/analyzer"
)

func TestCompatLocks(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "compatlock")
}

func TestCompatDDL(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "compatddl")
}

func TestCompatStatements(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "compatstmt")
}

// TestCompatFixes applies the fixes of DSQL101, DSQL102, DSQL103 and
// DSQL105 and compares with the golden file.
func TestCompatFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), analyzer.New(), "compatfix")
}

// compatSQL lists the .sql fixtures of the compatibility rules.
func compatSQL(t *testing.T, dirs ...string) []string {
	t.Helper()
	var files []string
	for _, d := range dirs {
		m, err := filepath.Glob(filepath.Join("testdata", "sql", "compat", d))
		if err != nil || len(m) == 0 {
			t.Fatalf("no fixtures %s: %v", d, err)
		}
		files = append(files, m...)
	}
	return files
}

// TestCompatSQLFiles checks migrations (goose, golang-migrate, dbmate), a
// pg_dump restore script and an sqlc query file as psql applies them
// (-migration-tx=statement): statement by statement.
func TestCompatSQLFiles(t *testing.T) {
	files := compatSQL(t, "goose/*.sql", "migrate/*.sql", "dbmate/*.sql", "sqlc/*.sql", "pgdump.sql", "versions.sql")
	a := analyzer.New()
	if err := a.Flags.Set("migration-tx", "statement"); err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	diags, err := analyzer.CheckSQLFiles(a, fset, files)
	if err != nil {
		t.Fatal(err)
	}
	checkSQLWants(t, fset, diags, files)
}

// TestCompatMigrationTxAuto runs the migrations with the default
// (-migration-tx=auto): a section goose or dbmate marks runs as the tool
// runs it, in one transaction with the version row, as with
// -migration-tx=file; a file no tool marks (golang-migrate's) statement by
// statement.
func TestCompatMigrationTxAuto(t *testing.T) {
	for _, c := range []struct {
		tag   string
		files []string
	}{
		{"file", compatSQL(t, "goose/*.sql", "dbmate/*.sql")},
		{"", compatSQL(t, "migrate/*.sql", "sqlc/*.sql")},
	} {
		fset := token.NewFileSet()
		diags, err := analyzer.CheckSQLFiles(analyzer.New(), fset, c.files)
		if err != nil {
			t.Fatal(err)
		}
		checkSQLWantsTagged(t, fset, diags, c.files, c.tag)
	}
}

// TestCompatMigrationTxFile runs the migrations as golang-migrate and goose
// do by default (-migration-tx=file): a file, or a goose/dbmate section, is
// one transaction, except where the file says otherwise.
func TestCompatMigrationTxFile(t *testing.T) {
	files := compatSQL(t, "goose/*.sql", "migrate/*.sql", "dbmate/*.sql", "sqlc/*.sql")
	a := analyzer.New()
	if err := a.Flags.Set("migration-tx", "file"); err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	diags, err := analyzer.CheckSQLFiles(a, fset, files)
	if err != nil {
		t.Fatal(err)
	}
	checkSQLWantsTagged(t, fset, diags, files, "file")
}

// TestCompatVersions runs the same file for an early-2026 cluster and for
// the default target: the findings switch with the feature dates.
func TestCompatVersions(t *testing.T) {
	files := compatSQL(t, "versions.sql")
	a := analyzer.New()
	if err := a.Flags.Set("dsql-version", "2026-01"); err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	diags, err := analyzer.CheckSQLFiles(a, fset, files)
	if err != nil {
		t.Fatal(err)
	}
	checkSQLWantsTagged(t, fset, diags, files, "2026-01")
	fset = token.NewFileSet()
	if diags, err = analyzer.CheckSQLFiles(analyzer.New(), fset, files); err != nil {
		t.Fatal(err)
	}
	checkSQLWantsTagged(t, fset, diags, files, "")
	if len(diags) != 1 {
		t.Errorf("default target: %d findings, want only the SERIAL one", len(diags))
	}
}

// sqlWantsTagged reads the expectations of a run tagged tag: on each line
// the patterns of a `-- want@tag` comment, or else of a plain `-- want`
// comment. A comment may list several `patterns`, one per diagnostic.
func sqlWantsTagged(t *testing.T, files []string, tag string) map[string][]*regexp.Regexp {
	t.Helper()
	wants := map[string][]*regexp.Regexp{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			pats, ok := wantPatterns(line, "-- want@"+tag+" ")
			if tag == "" || !ok {
				pats, _ = wantPatterns(line, "-- want ")
			}
			for _, p := range pats {
				key := fmt.Sprintf("%s:%d", f, i+1)
				wants[key] = append(wants[key], regexp.MustCompile(p))
			}
		}
	}
	return wants
}

// wantPatterns returns the backquoted patterns after marker on a line.
func wantPatterns(line, marker string) ([]string, bool) {
	i := strings.Index(line, marker)
	if i < 0 {
		return nil, false
	}
	var pats []string
	rest := line[i+len(marker):]
	for {
		rest = strings.TrimLeft(rest, " ")
		if !strings.HasPrefix(rest, "`") {
			return pats, true
		}
		end := strings.Index(rest[1:], "`")
		if end < 0 {
			return pats, true
		}
		pats = append(pats, rest[1:end+1])
		rest = rest[end+2:]
	}
}

// checkSQLWantsTagged is checkSQLWants for tagged runs, with several
// diagnostics allowed on a line.
func checkSQLWantsTagged(t *testing.T, fset *token.FileSet, diags []analysis.Diagnostic, files []string, tag string) {
	t.Helper()
	wants := sqlWantsTagged(t, files, tag)
	for _, d := range diags {
		p := fset.Position(d.Pos)
		key := fmt.Sprintf("%s:%d", p.Filename, p.Line)
		found := -1
		for i, re := range wants[key] {
			if re.MatchString(d.Message) {
				found = i
				break
			}
		}
		if found < 0 {
			t.Errorf("%s [%s]: unexpected diagnostic: %s", p, tag, d.Message)
			continue
		}
		wants[key] = append(wants[key][:found], wants[key][found+1:]...)
	}
	for key, res := range wants {
		for _, re := range res {
			t.Errorf("%s [%s]: no diagnostic matching %s", key, tag, re)
		}
	}
}

// TestCompatVersionsGo checks one Go file at two targets.
func TestCompatVersionsGo(t *testing.T) {
	for _, c := range []struct {
		version string
		want    string // line:rule of every finding, in order
	}{
		{"2026-01", "11:DSQL102 11:DSQL110 12:DSQL103 13:DSQL103 14:DSQL108 15:DSQL001 15:DSQL005 16:DSQL101"},
		{"2026-08-20", "11:DSQL110 12:DSQL103 15:DSQL001 15:DSQL005 16:DSQL101"},
		{"2026-09", "16:DSQL101"},
	} {
		a := analyzer.New()
		if err := a.Flags.Set("dsql-version", c.version); err != nil {
			t.Fatal(err)
		}
		var r recorder // the file has no want comments: only the findings count
		var got []string
		for _, res := range analysistest.Run(&r, analysistest.TestData(), a, "compatold") {
			for _, d := range res.Diagnostics {
				got = append(got, fmt.Sprintf("%d:%s", res.Pass.Fset.Position(d.Pos).Line, d.Category))
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("at %s:\n got %s\nwant %s", c.version, strings.Join(got, " "), c.want)
		}
	}
}

// TestCompatEmbedded checks migrations embedded with //go:embed.
func TestCompatEmbedded(t *testing.T) {
	var r recorder
	results := analysistest.Run(&r, analysistest.TestData(), analyzer.New(), "compatembed")
	for _, e := range r.errs {
		if !strings.Contains(e, ".sql:") { // analysistest cannot read wants in .sql files
			t.Error(e)
		}
	}
	dir := filepath.Join(analysistest.TestData(), "src", "compatembed", "migrations")
	files, _ := filepath.Glob(filepath.Join(dir, "*.sql"))
	for i := range files {
		files[i], _ = filepath.Abs(files[i])
	}
	for _, res := range results {
		checkSQLWants(t, res.Pass.Fset, res.Diagnostics, files)
	}
}

// TestDDLAcrossCalls: DSQL104 where separate calls run DDL and DML, or
// two DDL statements, on one transaction (a Go migration runner), with
// negative twins (autocommit, a commit between, exclusive branches,
// reads, a reused variable, a session type).
func TestDDLAcrossCalls(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "ddltx")
}

// TestLockingMigrators: DSQL007 at the import of a migration tool's
// package that takes an advisory lock; a tool's other packages are quiet.
func TestLockingMigrators(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "migrator", "migratorfree")
}
