package analyzer_test

import (
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/dsqllint/dsqllint/analyzer"
)

func TestShareLock(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "sharelock", "sharelock/queries")
}

func TestMySQLShareLock(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "mysqllock")
}

func TestUnfencedWrite(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "unfenced", "writeskew", "versionmigrations", "app/migrations", "goschema", "selfguard", "constfilter")
}

func TestDirectives(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "directives")
}

func TestFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), analyzer.New(), "fix")
}

// TestFixRawMultiLine applies fixes to clauses that span lines of raw
// strings and compares with the golden file; the only complaints allowed
// are the diagnostics analysistest cannot match to a want comment.
func TestFixRawMultiLine(t *testing.T) {
	var r recorder
	results := analysistest.RunWithSuggestedFixes(&r, analysistest.TestData(), analyzer.New(), "fixraw")
	lines := map[string]bool{}
	for _, res := range results {
		for _, d := range res.Diagnostics {
			p := res.Pass.Fset.Position(d.Pos)
			lines[strconv.Itoa(p.Line)+":"+strconv.Itoa(p.Column)] = true
		}
	}
	if !lines["10:2"] || !lines["16:2"] || len(lines) != 2 {
		t.Errorf("diagnostics at %v, want 10:2 and 16:2", lines)
	}
	for _, e := range r.errs {
		if !strings.Contains(e, "unexpected diagnostic") {
			t.Error(e)
		}
	}
}

func TestUncheckedCAS(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "uncheckedcas")
	// Go-flow rules reach database/sql through another package's API; a
	// package reaching no database still has its SQL checked.
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "indirectdb", "nodb")
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), analyzer.New(), "casfix")
}

func TestLockWithoutRetry(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "lockretry")
}

func TestIsolationLevel(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), analyzer.New(), "isolation")
}

// TestIsolationInFields: options kept in a struct field are reported when
// the package reads the field or others can; not when nothing reads it.
func TestIsolationInFields(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "isolationfield")
}

func TestSavepoint(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "savepoint")
}

// TestSquirrel: statements squirrel builds are rendered from the chain and
// judged as SQL, and run on the handle RunWith names.
func TestSquirrel(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "squirrelstore")
}

func TestORMLocking(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), analyzer.New(), "orm")
}

// TestSchema judges writes and locks by the schema the fixture's
// migrations declare, with the fixture's .dsqllint.yaml in force.
// TestFences: each fence Aurora DSQL drops (a trigger, an advisory lock,
// LOCK TABLE, a FOR SHARE's tokens, a SERIALIZABLE guard), a guard a
// UNIQUE constraint holds, a row inserted first, and a declared
// coordination table, each beside its negative twin.
func TestFences(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "fences")
}

func TestSchema(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "schemafence")
}

// TestNotSQL: strings run through gocql (or a project's wrapper of it)
// are CQL, not SQL.
func TestNotSQL(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "cqlstore", "cqlmixed", "cqlwrapped", "cqldotless")
}

// DSQL005's fix: each transaction shape it rewrites into the retry
// helper (golden), and each it refuses, with why in the finding.
func TestRetryFix(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), analyzer.New(), "retryfix")
}

// TestExpectations: SQL a test hands a mock as what to expect, or
// compares with in an assertion or substring search, is quiet; the same
// statements run, or handed to an ordinary function, are not.
func TestExpectations(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "expectations")
}

// TestUncheckedCommit: DSQL011 where a writing transaction drops its
// Commit's error; returned, checked, read-only and named-result twins.
func TestUncheckedCommit(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "uncheckedcommit")
}

// TestRetryOnMessageText: a retry predicate that reads PostgreSQL's
// wording of a serialization failure never matches on DSQL: the
// predicate is reported, and the lock it would retry; a predicate that
// tests the SQLSTATE too retries.
func TestRetryOnMessageText(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "retrymessage")
}

// TestDialectBranch: what a branch runs only against another database
// (the body of == "cockroach", the rest after != "cockroach" returns, a
// case of MySQL's name, a test named for SQLite, an enum) is not checked;
// the PostgreSQL branch, an else, and code every database runs are.
func TestDialectBranch(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "dialectbranch")
}

// TestAutoMigrate: the models handed to gorm's AutoMigrate whose tables
// Aurora DSQL refuses (a serial key, an index without ASYNC), and those
// it takes.
func TestAutoMigrate(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "automigrate")
}
