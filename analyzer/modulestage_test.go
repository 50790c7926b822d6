package analyzer_test

import (
	"fmt"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	gochecker "golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/dsqllint/dsqllint/analyzer"
	"github.com/dsqllint/dsqllint/txflow"
)

// runModule analyses every package of the testdata module at dir as the
// dsqllint command does: package by package, then the module stage.
func runModule(t *testing.T, dir string) (*token.FileSet, []analysis.Diagnostic) {
	t.Helper()
	a := analyzer.New()
	analyzer.ModuleStage(a)
	fset, diags, sums := analyze(t, dir, a)
	diags = txflow.Merge(txflow.Join(fset, sums), diags, // as the dsqllint command does
		func(d analysis.Diagnostic) analysis.Diagnostic { return d },
		func(_, d analysis.Diagnostic) analysis.Diagnostic { return d },
		func(f txflow.Finding) analysis.Diagnostic { return f.Diagnostic })
	return fset, diags
}

// runPackages analyses every package of the testdata module at dir, as go
// vet would, and returns their summaries too.
func runPackages(t *testing.T, dir string) (*token.FileSet, []analysis.Diagnostic, []*txflow.Summary) {
	t.Helper()
	return analyze(t, dir, analyzer.New())
}

// analyze runs a on every package of the testdata module at dir, each
// fact encoded and decoded on its way to the importers, as it crosses
// processes under go vet.
func analyze(t *testing.T, dir string, a *analysis.Analyzer) (*token.FileSet, []analysis.Diagnostic, []*txflow.Summary) {
	t.Helper()
	pkgs, err := packages.Load(&packages.Config{Mode: packages.LoadSyntax | packages.NeedModule, Dir: dir, Env: append(os.Environ(), "GOWORK=off")}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	graph, err := gochecker.Analyze([]*analysis.Analyzer{a}, pkgs, &gochecker.Options{SanityCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	var fset *token.FileSet
	var diags []analysis.Diagnostic
	var sums []*txflow.Summary
	for act := range graph.All() {
		if act.Err != nil {
			t.Errorf("%s: %v", act.Package.PkgPath, act.Err)
		}
		fset = act.Package.Fset
		diags = append(diags, act.Diagnostics...)
		if s, ok := act.Result.(*txflow.Summary); ok {
			sums = append(sums, s)
		}
	}
	return fset, diags, sums
}

// checkModuleWants matches diagnostics against the `// want` (Go) and
// `-- want` (SQL) markers of every file of the module: each marker met by
// a diagnostic on its line, and no diagnostic without one.
func checkModuleWants(t *testing.T, dir string, fset *token.FileSet, diags []analysis.Diagnostic) {
	t.Helper()
	var files []string
	abs, _ := filepath.Abs(dir)
	_ = filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".sql")) {
			files = append(files, path)
		}
		return nil
	})
	wants := moduleWants(t, files)
	for _, d := range diags {
		p := fset.Position(d.Pos)
		key := fmt.Sprintf("%s:%d", p.Filename, p.Line)
		if i := slices.IndexFunc(wants[key], func(re *regexp.Regexp) bool { return re.MatchString(d.Message) }); i >= 0 {
			wants[key] = slices.Delete(wants[key], i, i+1)
			continue
		}
		t.Errorf("%s: unexpected diagnostic: %s", p, d.Message)
	}
	for key, res := range wants {
		for _, re := range res {
			t.Errorf("%s: no diagnostic matching %s", key, re)
		}
	}
}

// moduleWants returns the backquoted patterns of every `// want` (Go) and
// `-- want` (SQL) marker, by file:line.
func moduleWants(t *testing.T, files []string) map[string][]*regexp.Regexp {
	t.Helper()
	wants := map[string][]*regexp.Regexp{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			pats, ok := wantPatterns(line, "// want ")
			if !ok {
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

// TestModuleStage: a FOR UPDATE in one package on a transaction another
// package begins and nobody retries, directly and through a helper; quiet
// where the caller retries on 40001, where another package's retry helper
// re-runs the closure, where nothing is locked, and where a directive says
// why; a connection-only wrapper retries nothing. A statement that locks
// on the pool is reported unless its every caller retries it.
func TestModuleStage(t *testing.T) {
	fset, diags := runModule(t, "testdata/txmod")
	checkModuleWants(t, "testdata/txmod", fset, diags)
	for _, d := range diags {
		begun := strings.Contains(d.Message, "runs in the transaction begun at")
		if d.Category == "DSQL005" && begun && (len(d.Related) == 0 || d.Related[0].Message != txflow.BeginRelated) {
			t.Errorf("%s: related locations %v, want the Begin first", fset.Position(d.Pos), d.Related)
		}
	}
}

// TestSqlcQueryFiles: a generated query's findings are reported once, at
// its line in the query file sqlc.yaml names, never in the generated Go.
func TestSqlcQueryFiles(t *testing.T) {
	fset, diags := runModule(t, "testdata/sqlcmod")
	checkModuleWants(t, "testdata/sqlcmod", fset, diags)
}

// TestModulePlugins: a plugin registered in init behind the store's
// interfaces. The transaction the store begins through the interface
// reaches the plugin's FOR UPDATE through a closure and an interface
// method (DSQL005), except where a retry helper re-runs it; the key-only
// write after a lock whose value is compared is fenced, the one after a
// lock nobody compares is not; a CAS result dropped through the interface
// is DSQL004.
func TestModulePlugins(t *testing.T) {
	fset, diags := runModule(t, "testdata/pluginmod")
	checkModuleWants(t, "testdata/pluginmod", fset, diags)
}

// TestModuleFences: a table's rows are claimed in one package (a
// compare-and-swap of the lease) and its owner column, assigned there, is
// compared by completions in another; the module stage learns the table
// contended and the owner a guard (though part of a unique index and named
// by no list), finds the completions fenced and the key-only finish not.
// Package by package, nothing in complete shows the table contended. A Go
// migration in the schema's directory writes once, at deploy: not judged.
func TestModuleFences(t *testing.T) {
	fset, diags := runModule(t, "testdata/fencemod")
	checkModuleWants(t, "testdata/fencemod", fset, diags)
	fset, diags, _ = runPackages(t, "testdata/fencemod")
	for _, d := range diags {
		if p := fset.Position(d.Pos); d.Category == "DSQL003" && strings.HasSuffix(p.Filename, "complete.go") {
			t.Errorf("package by package, complete.go:%d reported: %s", p.Line, d.Message)
		}
	}
}

// TestModuleMethodSets: an interface's implementation in a package that
// does not import it is found by its method set; a compare-and-swap
// result dropped through the interface is DSQL004, a read one is not.
func TestModuleMethodSets(t *testing.T) {
	fset, diags := runModule(t, "testdata/casmod")
	checkModuleWants(t, "testdata/casmod", fset, diags)
}

// TestModuleORMLocks: locks no known query call runs — an ORM's raw query
// in the ORM's transaction, the ORM's locking clause, a builder that
// cannot be rendered run by an unknown wrapper — are each judged where
// they are written: reported unless only a retry on 40001 runs that code.
func TestModuleORMLocks(t *testing.T) {
	fset, diags := runModule(t, "testdata/ormmod")
	checkModuleWants(t, "testdata/ormmod", fset, diags)
}

// TestModuleWithoutRetry: where nothing in the module retries on 40001,
// every lock is unretried and says so — the one the adapter hands back
// through an interface and the one on a transaction no caller shows.
func TestModuleWithoutRetry(t *testing.T) {
	fset, diags := runModule(t, "testdata/noretrymod")
	checkModuleWants(t, "testdata/noretrymod", fset, diags)
}

// TestModuleRetryDecorator: an implementation of an interface method that
// calls the method on the value it wraps inside a retry on 40001 is a
// retry decorator: the module's calls of the method go through it, and
// the lock its inner store takes is retried; a lock behind an interface
// nothing decorates is reported. A loop whose check for 40001 is another
// package's predicate, judged by its body, is a retry too, and so is one
// whose check is an interface method of its own package implemented in a
// package that does not import it (a store's driver).
func TestModuleRetryDecorator(t *testing.T) {
	fset, diags := runModule(t, "testdata/decomod")
	checkModuleWants(t, "testdata/decomod", fset, diags)
}

// DSQL005's fix where the transaction calls a function of another
// package: offered when that function only runs statements on the
// transaction (the summary its package carries says so), refused when it
// does more — alike under the module stage and under go vet, where the
// summary travels as a fact.
func TestModuleRetryFix(t *testing.T) {
	const dir = "testdata/retryfixmod"
	fset, diags := runModule(t, dir)
	checkModuleWants(t, dir, fset, diags)
	fixes := func(driver string, fset *token.FileSet, diags []analysis.Diagnostic) (offered []string) {
		for _, d := range diags {
			fixed := len(d.SuggestedFixes) > 0
			if want := strings.Contains(d.Message, "(-fix runs"); fixed != want {
				t.Errorf("%s: %s: %d fixes for %q", driver, fset.Position(d.Pos), len(d.SuggestedFixes), d.Message)
			}
			if fixed {
				offered = append(offered, fset.Position(d.Pos).String())
			}
		}
		return offered
	}
	module := fixes("dsqllint", fset, diags)
	vfset, vet, _ := runPackages(t, dir)
	if got := fixes("go vet", vfset, vet); len(got) != len(module) || len(got) == 0 {
		t.Errorf("go vet offers %d fixes %v, the module stage %d %v", len(got), got, len(module), module)
	}
}

// TestModuleTransactionFences: what runs before a write in its
// transaction, traced across packages and sqlc's generated methods given
// the transaction as their db argument. A write after a FOR UPDATE of its
// row is quiet (issue: sqlc's LockLeader then SetLeader); its twin with no
// lock bypasses the claim. A plugin's write in the service's transaction
// that read the shard's token FOR SHARE first loses that fence; the twin
// after a FOR UPDATE is quiet.
func TestModuleTransactionFences(t *testing.T) {
	fset, diags := runModule(t, "testdata/leadermod")
	checkModuleWants(t, "testdata/leadermod", fset, diags)
}

// TestExportedSummaryNotWrittenAfter: the summary the transaction flow
// exports as a fact is read by importers while the package's later passes
// run, in the same process under the checker and golangci-lint; the
// module stage's hooks go on the reporting pass's copy, not on it (a data
// race under -race before).
func TestExportedSummaryNotWrittenAfter(t *testing.T) {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.LoadSyntax | packages.NeedModule, Dir: "testdata/fencemod", Env: append(os.Environ(), "GOWORK=off")}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	graph, err := gochecker.Analyze([]*analysis.Analyzer{analyzer.New()}, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	hooked := 0
	for _, act := range graph.Roots {
		reported, _ := act.Result.(*txflow.Summary)
		if reported == nil || reported.Writes == nil {
			continue
		}
		for _, dep := range act.Deps {
			for _, f := range dep.AllPackageFacts() {
				fact, ok := f.Fact.(*txflow.Fact)
				if !ok || dep.Package != act.Package || f.Package != act.Package.Types {
					continue
				}
				own := fact.Carried()[0].Summary(act.Package.Fset) // the package's own, first
				hooked++
				if own == reported || own.Writes != nil {
					t.Errorf("%s: the exported summary was given the module stage's hooks after its export", act.Package.PkgPath)
				}
			}
		}
	}
	if hooked == 0 {
		t.Fatal("no package with writes for the module stage exported its summary: the test shows nothing")
	}
}
