package plugin_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/dsqllint/dsqllint/analyzer"
)

// TestNogoContract checks what Bazel's nogo (and any driver that runs many
// analyzers over many packages at once) relies on: the package exports a
// valid `var Analyzer`, configuration goes only through Analyzer.Flags with
// string values (nogo's analyzer_flags), and configured instances share no
// state, even when they run concurrently.
func TestNogoContract(t *testing.T) {
	if err := analysis.Validate([]*analysis.Analyzer{analyzer.Analyzer}); err != nil {
		t.Fatal(err)
	}
	if analyzer.Analyzer.Name != "dsqllint" {
		t.Errorf("Analyzer.Name %q: nogo's config and golangci-lint key on it", analyzer.Analyzer.Name)
	}
	// Every flag takes a string, as nogo's analyzer_flags give it.
	analyzer.New().Flags.VisitAll(func(f *flag.Flag) {
		if err := analyzer.New().Flags.Set(f.Name, f.DefValue); err != nil {
			t.Errorf("-%s=%q: %v", f.Name, f.DefValue, err)
		}
	})

	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.25\n",
		"m.go":   "package m\n\nconst q = \"SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE\"\n\nconst k = \"SELECT range_id FROM shards WHERE shard_id = $1 FOR KEY SHARE\"\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.LoadSyntax, Dir: dir, Env: append(os.Environ(), "GOWORK=off")}, "./...")
	if err != nil || packages.PrintErrors(pkgs) > 0 {
		t.Fatalf("loading the fixture: %v", err)
	}

	// Two differently configured instances and the package-level one, run
	// concurrently over the same packages: each sees its own flags.
	old := analyzer.New()
	if err := old.Flags.Set("dsql-version", "2026-01"); err != nil {
		t.Fatal(err)
	}
	quiet := analyzer.New()
	if err := quiet.Flags.Set("disable", "DSQL001"); err != nil {
		t.Fatal(err)
	}
	want := map[*analysis.Analyzer]int{old: 2, quiet: 0, analyzer.Analyzer: 1}
	got := map[*analysis.Analyzer]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		for a := range want {
			wg.Add(1)
			go func() {
				defer wg.Done()
				graph, err := checker.Analyze([]*analysis.Analyzer{a}, pkgs, nil)
				if err != nil {
					t.Error(err)
					return
				}
				n := 0
				for act := range graph.All() {
					for _, d := range act.Diagnostics {
						if strings.HasPrefix(d.Message, "DSQL001 ") {
							n++
						}
					}
				}
				mu.Lock()
				defer mu.Unlock()
				if prev, ok := got[a]; ok && prev != n {
					t.Errorf("the same analyzer reported %d and %d findings in concurrent runs", prev, n)
				}
				got[a] = n
			}()
		}
	}
	wg.Wait()
	for a, n := range want {
		if got[a] != n {
			t.Errorf("analyzer with -dsql-version=%s -disable=%s: %d DSQL001 findings, want %d",
				a.Flags.Lookup("dsql-version").Value, a.Flags.Lookup("disable").Value, got[a], n)
		}
	}
}
