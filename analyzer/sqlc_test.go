package analyzer_test

import (
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	gochecker "golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/dsqllint/dsqllint/analyzer"
)

// TestSqlcQueryFiles: a generated query's findings are reported once, at
// its line in the query file sqlc.yaml names, never in the generated Go.
func TestSqlcQueryFiles(t *testing.T) {
	cfg := &packages.Config{Mode: packages.LoadSyntax, Dir: "testdata/sqlcmod"}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	graph, err := gochecker.Analyze([]*analysis.Analyzer{analyzer.New()}, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	query, _ := filepath.Abs("testdata/sqlcmod/db/query/shards.sql")
	var fset *token.FileSet
	var diags []analysis.Diagnostic
	for act := range graph.All() {
		if act.Err != nil {
			t.Errorf("%s: %v", act.Package.PkgPath, act.Err)
		}
		fset = act.Package.Fset
		for _, d := range act.Diagnostics {
			if name := fset.Position(d.Pos).Filename; strings.HasSuffix(name, ".go") {
				t.Errorf("%s: reported in Go: %s", fset.Position(d.Pos), d.Message)
			}
			diags = append(diags, d)
		}
	}
	checkSQLWants(t, fset, diags, []string{query})
}
