package analyzer

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	gochecker "golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// TestSchemaOncePerModule: the packages of a module share one load of its
// configuration and schema, and each sees the schema's finding.
// noWorkspace loads a test module of its own, outside the repository's
// go.work.
var noWorkspace = append(os.Environ(), "GOWORK=off")

func TestSchemaOncePerModule(t *testing.T) {
	cfg := &packages.Config{Mode: packages.LoadSyntax, Dir: "testdata/mod", Env: noWorkspace}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil || len(pkgs) != 3 {
		t.Fatalf("load: %v, %d packages", err, len(pkgs))
	}
	a, s := newAnalyzer()
	graph, err := gochecker.Analyze([]*analysis.Analyzer{a}, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	for act := range graph.All() {
		if act.Err != nil {
			t.Errorf("%s: %v", act.Package.PkgPath, act.Err)
		}
	}
	if found := schemaFindings(graph); found != 3 {
		t.Errorf("%d packages report the lock by a column that is not the key, want 3", found)
	}
	if s.Loads() != 1 {
		t.Errorf("the module was loaded %d times, want once", s.Loads())
	}
}

// TestPreload: settings loaded ahead of the packages (the dsqllint command,
// while go list runs) are the ones the packages use, loaded once; a
// directory in no module loads nothing.
func TestPreload(t *testing.T) {
	cfg := &packages.Config{Mode: packages.LoadSyntax, Dir: "testdata/mod", Env: noWorkspace}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil || len(pkgs) != 3 {
		t.Fatalf("load: %v, %d packages", err, len(pkgs))
	}
	a, s := newAnalyzer()
	Preload(a, "/") // no go.mod at a filesystem's root
	if s.Loads() != 0 {
		t.Fatalf("a directory outside any module loaded %d modules", s.Loads())
	}
	Preload(a, "testdata/mod/db")
	if s.Loads() != 1 {
		t.Fatalf("preloading loaded %d modules, want 1", s.Loads())
	}
	graph, err := gochecker.Analyze([]*analysis.Analyzer{a}, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if found := schemaFindings(graph); found != 3 {
		t.Errorf("%d packages report with the preloaded schema, want 3", found)
	}
	if s.Loads() != 1 {
		t.Errorf("the module was loaded %d times, want once", s.Loads())
	}
}

// schemaFindings counts the diagnostics that cite testdata/mod's schema:
// its lock by a column that is not the key, one per package.
func schemaFindings(graph *gochecker.Graph) int {
	found := 0
	for act := range graph.All() {
		for _, d := range act.Diagnostics {
			if strings.Contains(d.Message, "not the primary key (id) of leases (declared at db/migrations/001_init.sql:1)") {
				found++
			}
		}
	}
	return found
}
