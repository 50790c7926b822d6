package analyzer_test

import (
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/dsqllint/dsqllint/analyzer"
)

// checkSQLWants matches diagnostics in .sql files against their `-- want`
// comments (several `patterns` on a line, one per diagnostic): every want
// met, no diagnostic unexpected.
func checkSQLWants(t *testing.T, fset *token.FileSet, diags []analysis.Diagnostic, files []string) {
	t.Helper()
	var sql []analysis.Diagnostic
	for _, d := range diags {
		if strings.HasSuffix(fset.Position(d.Pos).Filename, ".sql") {
			sql = append(sql, d)
		}
	}
	checkSQLWantsTagged(t, fset, sql, files, "")
}

func TestSQLFiles(t *testing.T) {
	files := []string{filepath.Join("testdata", "sql", "queries.sql"), filepath.Join("testdata", "sql", "migration.sql")}
	fset := token.NewFileSet()
	diags, err := analyzer.CheckSQLFiles(analyzer.New(), fset, files)
	if err != nil {
		t.Fatal(err)
	}
	checkSQLWants(t, fset, diags, files)
}

// recorder is an analysistest.Testing that keeps errors for inspection.
type recorder struct{ errs []string }

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestEmbeddedSQL(t *testing.T) {
	var r recorder
	results := analysistest.Run(&r, analysistest.TestData(), analyzer.New(), "embedsql")
	for _, e := range r.errs {
		if !strings.Contains(e, ".sql:") { // analysistest cannot read wants in .sql files
			t.Error(e)
		}
	}
	dir := filepath.Join(analysistest.TestData(), "src", "embedsql")
	files := []string{filepath.Join(dir, "queries", "shards.sql"), filepath.Join(dir, "schema.sql")}
	for _, res := range results {
		abs := make([]string, len(files))
		for i, f := range files {
			abs[i], _ = filepath.Abs(f)
		}
		checkSQLWants(t, res.Pass.Fset, res.Diagnostics, abs)
	}
}

// TestPositions checks exact line and column inside multi-line raw strings,
// escaped strings and concatenations.
func TestPositions(t *testing.T) {
	var r recorder
	results := analysistest.Run(&r, analysistest.TestData(), analyzer.New(), "positions")
	src, err := os.ReadFile(filepath.Join(analysistest.TestData(), "src", "positions", "positions.go"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, clause := range []string{"FOR   SHARE", "FOR NO KEY UPDATE", `"FOR SHARE"`} {
		off := strings.Index(string(src), clause)
		if clause[0] == '"' {
			off++
		}
		line := strings.Count(string(src[:off]), "\n") + 1
		col := off - strings.LastIndex(string(src[:off]), "\n")
		want["positions.go:"+strconv.Itoa(line)+":"+strconv.Itoa(col)] = true
	}
	got := map[string]bool{}
	for _, res := range results {
		for _, d := range res.Diagnostics {
			p := res.Pass.Fset.Position(d.Pos)
			got[filepath.Base(p.Filename)+":"+strconv.Itoa(p.Line)+":"+strconv.Itoa(p.Column)] = true
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("no diagnostic at %s; got %v", k, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d diagnostics, want %d: %v", len(got), len(want), got)
	}
}

// TestTemplatedSQLFile checks a migration written as a Go text/template:
// its statements are judged, and each finding is at the line and column
// of the source bytes, after the actions on the same line.
func TestTemplatedSQLFile(t *testing.T) {
	file := filepath.Join("testdata", "sql", "templated", "sessions.sql")
	fset := token.NewFileSet()
	diags, err := analyzer.CheckSQLFiles(analyzer.New(), fset, []string{file})
	if err != nil {
		t.Fatal(err)
	}
	checkSQLWants(t, fset, diags, []string{file})
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range []string{"bigserial", "CREATE INDEX sessions_expiry", "CREATE INDEX {{ .Prefix }}"} {
		off := strings.Index(string(src), s)
		line := strings.Count(string(src[:off]), "\n") + 1
		col := off - strings.LastIndex(string(src[:off]), "\n")
		want = append(want, fmt.Sprintf("%d:%d", line, col))
	}
	var got []string
	for _, d := range diags {
		p := fset.Position(d.Pos)
		got = append(got, fmt.Sprintf("%d:%d", p.Line, p.Column))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("findings at %v, want %v", got, want)
	}
}

// An embedded file the package runs whole with one Exec is one implicit
// transaction; one it splits runs statement by statement.
func TestEmbeddedRunWhole(t *testing.T) {
	checkEmbeddedPackage(t, "embedexec", "setup.sql", "steps.sql")
}

// checkEmbeddedPackage runs the analyzer on a testdata package and checks
// its findings against the Go files' `// want` comments and those of its
// embedded .sql files (analysistest itself reads only the Go files').
func checkEmbeddedPackage(t *testing.T, pkg string, sqlFiles ...string) {
	t.Helper()
	var r recorder
	results := analysistest.Run(&r, analysistest.TestData(), analyzer.New(), pkg)
	for _, e := range r.errs {
		if !strings.Contains(e, ".sql:") {
			t.Error(e)
		}
	}
	dir := filepath.Join(analysistest.TestData(), "src", pkg)
	var files []string
	for _, f := range sqlFiles {
		abs, _ := filepath.Abs(filepath.Join(dir, f))
		files = append(files, abs)
	}
	for _, res := range results {
		checkSQLWants(t, res.Pass.Fset, res.Diagnostics, files)
	}
}

// A lock kept in an embedded .sql file runs in the transaction of the
// query call that runs its variable: reported where that transaction is
// begun outside any retry, quiet inside one.
func TestEmbeddedLock(t *testing.T) {
	checkEmbeddedPackage(t, "embedlock", "lock.sql", "retried.sql")
}
