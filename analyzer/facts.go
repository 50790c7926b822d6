package analyzer

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/txflow"
)

// What crosses packages travels as a package fact (txflow.Fact): each
// package carries its own summary and those of the packages below it, so
// that a driver that runs one package at a time joins them as the
// dsqllint command's module stage joins every package (txflow.JoinPackage).

// staged maps each analyzer New made to its settings, for ModuleStage.
var staged sync.Map // *analysis.Analyzer → *settings

// ModuleStage tells a that the dsqllint command joins the summaries of
// every package it analyses after they are analysed (txflow.Join): a
// package then neither joins nor exports them, and a has no facts, so the
// driver does not run it on the packages' dependencies.
func ModuleStage(a *analysis.Analyzer) {
	if s, ok := staged.Load(a); ok {
		s.(*settings).moduleStage = true
		a.FactTypes = nil
	}
}

// library reports a package of the standard library or of the module
// cache: go vet runs the analyzer on every dependency for its facts, but
// only the summaries of the module (or workspace) being linted join its
// packages', and the module cache holds none of those.
func library(pass *analysis.Pass) bool {
	if pass.Module != nil && (pass.Module.Path == "std" || pass.Module.Path == "cmd") {
		return true
	}
	if len(pass.Files) == 0 {
		return false
	}
	name := pass.Fset.File(pass.Files[0].Pos()).Name()
	for _, dir := range libraryDirs() {
		if rel, err := filepath.Rel(dir, name); err == nil && filepath.IsLocal(rel) {
			return true
		}
	}
	return false
}

// libraryDirs are GOROOT/src and the module cache.
var libraryDirs = sync.OnceValue(func() []string {
	var dirs []string
	if goroot := build.Default.GOROOT; goroot != "" {
		dirs = append(dirs, filepath.Join(goroot, "src"))
	}
	if cache := os.Getenv("GOMODCACHE"); cache != "" {
		dirs = append(dirs, cache)
	} else if gopath := filepath.SplitList(build.Default.GOPATH); len(gopath) > 0 && gopath[0] != "" {
		dirs = append(dirs, filepath.Join(gopath[0], "pkg", "mod"))
	}
	return dirs
})

// importedSummaries returns the summaries the package's imports carry,
// each package once.
func (c *checker) importedSummaries() []*txflow.Summary {
	var out []*txflow.Summary
	seen := map[string]bool{c.pass.Pkg.Path(): true}
	for _, imp := range c.pass.Pkg.Imports() {
		var f txflow.Fact
		if !c.pass.ImportPackageFact(imp, &f) {
			continue
		}
		for _, s := range f.Summaries(c.pass.Fset) {
			if !seen[s.Pkg] && c.joined(s) {
				seen[s.Pkg] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// joined reports whether summaries of module mod join the package's, as
// the dsqllint command joins the packages of the module, or of the
// workspace, it lints.
func (c *checker) joined(s *txflow.Summary) bool {
	if c.summary.Module == "" {
		// No module (GOPATH mode): the packages of the same tree.
		tree := func(path string) string { first, _, _ := strings.Cut(path, "/"); return first }
		return s.Module == "" && tree(s.Pkg) == tree(c.summary.Pkg)
	}
	return s.Module == c.summary.Module || slices.Contains(c.settings.workspace, s.Module)
}

// carried returns what the package's fact carries: its summary, when it
// says anything another package could use, and those of its imports.
func carried(own *txflow.Summary, imported []*txflow.Summary) []*txflow.Summary {
	if own == nil || own.Empty() {
		return imported
	}
	return append([]*txflow.Summary{own}, imported...)
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
func (c *checker) judgeWithImports(imported []*txflow.Summary, held *heldReports, texts []*Text) {
	if c.pass.Pkg == nil || c.summary == nil {
		return // nothing to join: the deferred flush reports them
	}
	m := txflow.JoinPackage(c.pass.Fset, c.pass.Pkg.Path(), append([]*txflow.Summary{c.summary}, imported...))
	mine := map[string]bool{}
	for _, f := range c.pass.Files {
		mine[c.pass.Fset.File(f.Pos()).Name()] = true
	}
	for _, t := range texts {
		if f := c.pass.Fset.File(t.Pos(0, false)); f != nil {
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
		if f := c.pass.Fset.File(d.Pos); f != nil && mine[f.Name()] {
			held.report(d)
		}
	}
}
