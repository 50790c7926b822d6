package analyzer

import (
	"bytes"
	"go/build"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/modconf"
	"github.com/dsqllint/dsqllint/txflow"
)

// What crosses packages travels as a package fact (txflow.Fact): each
// package carries its own summary and those of the packages below it, so
// that a driver that runs one package at a time joins them as the
// dsqllint command's module stage joins every package (txflow.JoinPackage).

// staged maps each analyzer New made to its settings, for ModuleStage.
var staged sync.Map // *analysis.Analyzer → *modconf.Settings

// ModuleStage tells a that the dsqllint command joins the summaries of
// every package it analyses after they are analysed (txflow.Join): a
// package then neither joins nor exports them, and a has no facts, so the
// driver does not run it on the packages' dependencies.
func ModuleStage(a *analysis.Analyzer) {
	if s, ok := staged.Load(a); ok {
		s.(*modconf.Settings).ModuleStage = true
		a.FactTypes = nil
	}
}

// library reports a package whose summary no package joins: one of the
// standard library, or one of the module cache (or a vendor directory)
// that never checks for a serialization failure. go vet runs the
// analyzer on every dependency for its facts; a library's retry helper is
// the one thing of a library that decides a verdict in the module
// (Helper).
func library(pass *analysis.Pass) bool {
	if pass.Module != nil && (pass.Module.Path == "std" || pass.Module.Path == "cmd") {
		return true
	}
	names := make([]string, 0, len(pass.Files))
	for _, f := range pass.Files {
		names = append(names, pass.Fset.File(f.Pos()).Name())
	}
	return len(names) > 0 && !Helper(names, true)
}

// Helper reports whether a package outside the packages linted, with Go
// files names, is one whose summary joins theirs: a package kept in the
// repository (a module a replace directive or go.work points at, a
// package of the module not named on the command line), or a package of
// the module cache or a vendor directory whose source checks for a
// serialization failure (a company's retry helper). The dsqllint command
// loads these packages from source, go vet analyses them for their facts;
// the command reads a library's files only where a linted package
// imports it (imported), where a trail of the module enters it.
func Helper(names []string, imported bool) bool {
	if len(names) == 0 {
		return false
	}
	dir := filepath.Dir(names[0])
	if goroot := build.Default.GOROOT; goroot != "" && within(filepath.Join(goroot, "src"), dir) {
		return false
	}
	if !within(modCache(), dir) && !versioned(dir) && !strings.Contains(filepath.ToSlash(dir), "/vendor/") {
		return true
	}
	if !imported {
		return false
	}
	checks := false
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		if bytes.Contains(data, []byte(`"database/sql/driver"`)) {
			return false // a driver: its table of SQLSTATEs names 40001, it retries nothing of ours
		}
		checks = checks || checksConflictText(data)
	}
	return checks
}

// checksConflictText reports library source that may check for a
// serialization failure: SQLSTATE 40001 spelled as a string, by its
// condition name, or as its class (40) beside an SQLSTATE. Plain
// "serialization error"s are a codec's, and a 40001 in a table of numbers
// is no SQLSTATE. Byte searches: a library package's files are read whole.
func checksConflictText(src []byte) bool {
	for _, m := range sqlConflict {
		if bytes.Contains(src, m) {
			return true
		}
	}
	return bytes.Contains(src, []byte(`"40"`)) && bytes.Contains(src, []byte("SQLState"))
}

var sqlConflict = [][]byte{[]byte(`"40001"`), []byte("`40001`"), []byte("erializationFailure"), []byte("erialization_failure"), []byte("could not serialize access")}

func within(dir, name string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, name)
	return err == nil && filepath.IsLocal(rel)
}

// versioned reports a directory of an extracted module version
// (…/pq@v1.10.9/…): the module cache, wherever `go env -w GOMODCACHE`
// put it.
func versioned(dir string) bool {
	for _, elem := range strings.Split(filepath.ToSlash(dir), "/") {
		if _, v, ok := strings.Cut(elem, "@v"); ok && v != "" && v[0] >= '0' && v[0] <= '9' {
			return true
		}
	}
	return false
}

// modCache is the module cache's directory.
var modCache = sync.OnceValue(func() string {
	if cache := os.Getenv("GOMODCACHE"); cache != "" {
		return cache
	}
	if gopath := filepath.SplitList(build.Default.GOPATH); len(gopath) > 0 && gopath[0] != "" {
		return filepath.Join(gopath[0], "pkg", "mod")
	}
	return ""
})

// Helpers tells a, before the dsqllint command analyses the packages it
// lints, which packages outside them it analysed first (Helper): calls of
// their functions are followed as calls of the module's.
func Helpers(a *analysis.Analyzer, pkgs []string) {
	if s, ok := staged.Load(a); ok {
		m := make(map[string]bool, len(pkgs))
		for _, p := range pkgs {
			m[p] = true
		}
		s.(*modconf.Settings).Helpers.Store(&m)
	}
}

// helperPkg reports whether p is a package outside the module whose
// summary is in view: one the dsqllint command analysed first (Helpers),
// or, package by package, one whose summary the imports carry.
func (c *checker) helperPkg(p *types.Package) bool {
	if p == c.Pass.Pkg {
		return false
	}
	if c.Settings.ModuleStage {
		m := c.Settings.Helpers.Load()
		return m != nil && (*m)[p.Path()]
	}
	_, ok := c.importedSummaries()[p.Path()]
	return ok
}

// importedSummaries returns, by package, the summaries the package's
// imports carry and it joins; read once.
func (c *checker) importedSummaries() map[string]*txflow.Summary {
	if c.imported != nil || c.Pass.Pkg == nil || c.Pass.ImportPackageFact == nil {
		return c.imported
	}
	c.imported = map[string]*txflow.Summary{}
	for _, imp := range c.Pass.Pkg.Imports() {
		var f txflow.Fact
		if !c.Pass.ImportPackageFact(imp, &f) {
			continue
		}
		for _, s := range f.Summaries(c.Pass.Fset) {
			if _, seen := c.imported[s.Pkg]; !seen && s.Pkg != c.Pass.Pkg.Path() && c.joined(s) {
				c.imported[s.Pkg] = s
			}
		}
	}
	return c.imported
}

// joined reports whether a summary an import carries joins the
// package's: in a module, all do (those of its module and workspace, and
// of the helpers outside it, Helper); with no module (GOPATH mode), those
// of the same tree.
func (c *checker) joined(s *txflow.Summary) bool {
	if c.Pass.Module != nil && c.Pass.Module.Path != "" {
		return true
	}
	tree := func(path string) string { first, _, _ := strings.Cut(path, "/"); return first }
	return s.Module == "" && tree(s.Pkg) == tree(c.Pass.Pkg.Path())
}

// carried returns what the package's fact carries: its summary, when it
// says anything another package could use, and those of its imports, in
// the order of their paths.
func carried(own *txflow.Summary, imported map[string]*txflow.Summary) []*txflow.Summary {
	var out []*txflow.Summary
	if own != nil && !own.Empty() {
		out = append(out, own)
	}
	for _, path := range slices.Sorted(maps.Keys(imported)) {
		out = append(out, imported[path])
	}
	return out
}

// heldReports holds a package's diagnostics until the join.
type heldReports struct {
	report func(analysis.Diagnostic)
	diags  []analysis.Diagnostic
}

func (h *heldReports) add(d analysis.Diagnostic) { h.diags = append(h.diags, d) }

// flush reports what is still held, as it is.
func (h *heldReports) flush() {
	for _, d := range h.diags {
		h.report(d)
	}
	h.diags = nil
}

// judgeWithImports joins the package's summary with those its imports
// carry and reports the result: DSQL003 and DSQL005 as the join judges
// them, and what only the join shows (a lock of an imported package
// whose transaction the package begins outside any retry, a
// compare-and-swap result of an imported function the package drops),
// each at a place in the package.
func (c *checker) judgeWithImports(held *heldReports, texts []*gosql.Text) {
	if c.Pass.Pkg == nil || c.summary == nil {
		return // nothing to join: the deferred flush reports them
	}
	m := txflow.JoinPackage(c.Pass.Fset, c.Pass.Pkg.Path(), append([]*txflow.Summary{c.summary}, carried(nil, c.importedSummaries())...))
	mine := map[string]bool{}
	for _, f := range c.Pass.Files {
		mine[c.Pass.Fset.File(f.Pos()).Name()] = true
	}
	for _, t := range texts {
		if f := c.Pass.Fset.File(t.Pos(0, false)); f != nil {
			mine[f.Name()] = true
		}
	}
	diags := txflow.Merge(m, held.diags,
		func(d analysis.Diagnostic) analysis.Diagnostic { return d },
		func(_, d analysis.Diagnostic) analysis.Diagnostic { return d },
		func(f txflow.Finding) analysis.Diagnostic { return f.Diagnostic })
	held.diags = nil
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Pos < diags[j].Pos })
	for _, d := range diags {
		if f := c.Pass.Fset.File(d.Pos); f != nil && mine[f.Name()] {
			held.report(d)
		}
	}
}
