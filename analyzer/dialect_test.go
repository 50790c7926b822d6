package analyzer

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	gochecker "golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// TestOtherDialect: a module that keeps its migrations once per database
// (migrations/postgres, migrations/mysql, migrations/sqlite) is linted on
// the PostgreSQL copy only; a module whose only migrations are named for
// MySQL is linted on them, since that is the SQL it ports.
func TestOtherDialect(t *testing.T) {
	for _, c := range []struct {
		dir  string
		want []string // the directories of the files DSQL103 reports in
	}{
		{"dialectmod", []string{"store/migrations/postgres"}},
		{"dialectonlymod", []string{"store/migrations/mysql"}},
	} {
		dir := filepath.Join("testdata", c.dir)
		cfg := &packages.Config{Mode: packages.LoadSyntax, Dir: dir, Env: noWorkspace}
		pkgs, err := packages.Load(cfg, "./...")
		if err != nil || len(pkgs) != 1 {
			t.Fatalf("%s: load: %v, %d packages", c.dir, err, len(pkgs))
		}
		a, _ := newAnalyzer()
		graph, err := gochecker.Analyze([]*analysis.Analyzer{a}, pkgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(dir)
		var got []string
		for act := range graph.All() {
			if act.Err != nil {
				t.Errorf("%s: %v", act.Package.PkgPath, act.Err)
			}
			for _, d := range act.Diagnostics {
				if d.Category != "DSQL103" {
					continue
				}
				rel, _ := filepath.Rel(abs, filepath.Dir(act.Package.Fset.Position(d.Pos).Filename))
				if !slices.Contains(got, filepath.ToSlash(rel)) {
					got = append(got, filepath.ToSlash(rel))
				}
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: DSQL103 reported in %s, want %s", c.dir, strings.Join(got, ", "), strings.Join(c.want, ", "))
		}
	}
}
