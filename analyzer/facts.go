package analyzer

import (
	"sort"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/modconf"
	"github.com/dsqllint/dsqllint/sqltext"
	"github.com/dsqllint/dsqllint/txcheck"
	"github.com/dsqllint/dsqllint/txflow"
)

// What crosses packages travels as a package fact (txflow.Fact): each
// package carries its own summary and those of the packages below it, so
// that a driver that runs one package at a time joins them as the
// dsqllint command's module stage joins every package (txflow.JoinPackage).

// staged maps each analyzer New made to its settings and its
// transaction-flow pass, for ModuleStage and Helpers.
var staged sync.Map // *analysis.Analyzer → stage

type stage struct {
	settings *modconf.Settings
	tx       *analysis.Analyzer
}

// ModuleStage tells a that the dsqllint command joins the summaries of
// every package it analyses after they are analysed (txflow.Join): a
// package then neither joins nor exports them, and a has no facts, so the
// driver does not run it on the packages' dependencies.
func ModuleStage(a *analysis.Analyzer) {
	if s, ok := staged.Load(a); ok {
		s.(stage).settings.ModuleStage = true
		s.(stage).tx.FactTypes = nil
	}
}

// Preload loads the settings of the module holding dir before any
// package asks for them (modconf.Settings.Preload).
func Preload(a *analysis.Analyzer, dir string) {
	if s, ok := staged.Load(a); ok {
		s.(stage).settings.Preload(dir)
	}
}

// WithoutFixes tells a that its driver discards suggested fixes (the
// dsqllint command printing text): fixes that cost reading the source
// are not built.
func WithoutFixes(a *analysis.Analyzer) {
	if s, ok := staged.Load(a); ok {
		s.(stage).settings.NoFixes = true
	}
}

// FactsOnly tells a that its driver runs it on the package only for its
// facts (go vet on a dependency, unitchecker's VetxOnly): the package's
// summary is made and exported, its findings are not looked for.
func FactsOnly(a *analysis.Analyzer) {
	if s, ok := staged.Load(a); ok {
		s.(stage).settings.FactsOnly = true
	}
}

// Explaining tells a that the dsqllint command answers -why: the writes
// the module stage leaves alone keep why.
func Explaining(a *analysis.Analyzer) {
	if s, ok := staged.Load(a); ok {
		s.(stage).settings.Explain = true
	}
}

// Helpers tells a, before the dsqllint command analyses the packages it
// lints, which packages outside them it analysed first (Helper): calls of
// their functions are followed as calls of the module's.
func Helpers(a *analysis.Analyzer, pkgs []string) {
	if s, ok := staged.Load(a); ok {
		m := make(map[string]bool, len(pkgs))
		for _, p := range pkgs {
			m[p] = true
		}
		s.(stage).settings.Helpers.Store(&m)
	}
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
func (c *linter) judgeWithImports(held *heldReports, texts []*sqltext.Text) {
	if c.Pass.Pkg == nil || c.sum == nil {
		return // nothing to join: the deferred flush reports them
	}
	m := txflow.JoinPackage(c.Pass.Fset, c.Pass.Pkg.Path(), append([]*txflow.Summary{c.sum}, txcheck.Imported(c.Pass.Fset, c.tx.Imported)...))
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
