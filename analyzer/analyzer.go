package analyzer

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/catalog"
	"github.com/dsqllint/dsqllint/fixer"
	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/modconf"
	"github.com/dsqllint/dsqllint/retryfix"
	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
	"github.com/dsqllint/dsqllint/txflow"
)

const doc = `report SQL that breaks or silently weakens on Amazon Aurora DSQL

dsqllint finds SQL in Go code (constants, concatenations, Sprintf formats,
query arguments of database/sql, sqlx and pgx, //go:embed .sql files) and
reports what Aurora DSQL rejects or what loses its concurrency guarantee
under optimistic concurrency. Rule reference: docs/rules/.`

// Analyzer is the dsqllint analyzer with its flags bound to a default
// configuration.
var Analyzer = New()

// New returns a dsqllint analyzer with its own configuration and flags, so
// that tests and embedders can run differently configured instances.
func New() *analysis.Analyzer {
	a, _ := newAnalyzer()
	return a
}

func newAnalyzer() (*analysis.Analyzer, *modconf.Settings) {
	s := modconf.NewRoot()
	a := &analysis.Analyzer{
		Name:             "dsqllint",
		Doc:              doc,
		URL:              "https://github.com/dsqllint/dsqllint/blob/main/docs/rules/README.md",
		RunDespiteErrors: true,
		Run:              func(pass *analysis.Pass) (any, error) { return run(s, pass) },
		ResultType:       reflect.TypeOf((*txflow.Summary)(nil)),
		FactTypes:        []analysis.Fact{new(txflow.Fact)},
	}
	staged.Store(a, s)
	s.Register(&a.Flags)
	return a, s
}

func run(s *modconf.Settings, pass *analysis.Pass) (_ any, err error) {
	if len(pass.Files) == 0 && !slices.ContainsFunc(pass.OtherFiles, gosql.IsSQLFile) || len(pass.Files) > 0 && (pass.TypesInfo == nil || library(pass)) {
		return (*txflow.Summary)(nil), nil // a dependency loaded from export data, or a library: nothing to carry
	}
	ms, err := s.ForPackage(pass)
	if err != nil {
		return nil, err
	}
	if ms.File != nil && len(ms.File.Excludes) > 0 {
		pass = ms.Excluding(pass)
	}
	var held *heldReports
	if !ms.ModuleStage {
		// One package at a time: what it reports waits for the join with
		// the summaries its imports carry (judgeWithImports).
		held = &heldReports{report: pass.Report}
		p := *pass
		p.Report = held.add
		pass = &p
	}
	c := &checker{Package: &gosql.Package{Pass: pass, Settings: ms, Funcs: map[*types.Func]*ast.FuncDecl{}}, loops: map[ast.Node]bool{}, helpers: map[*ast.FuncDecl]bool{}}
	c.fix = &retryfix.Rewriter{Package: c.Package}
	// A bug of ours must not crash go vet for the whole repository: it
	// becomes this package's error, after every finding made so far.
	defer func() {
		if r := recover(); r != nil {
			c.internal = append(c.internal, fmt.Errorf("dsqllint internal error (please report): %v", r))
		}
		if held != nil {
			held.flush() // what was found before a failure of ours is still reported
		}
		err = errors.Join(c.internal...)
	}()
	texts := c.Collect()
	c.observeSites()
	if gosql.OnlyNonSQLClient(pass.Pkg) {
		texts = texts[:0] // its strings are CQL or another language, not SQL
	}
	queryFiles, generated := c.SqlcFiles()
	c.Generated = generated
	for _, t := range texts {
		if t.Node != nil && strings.HasPrefix(strings.TrimSpace(t.SQL), "-- name:") && generated[c.FileOf(t.Node.Pos())] {
			t.Generated = true
		}
	}
	embedded := c.Embedded()
	texts = append(texts, embedded...)
	// .sql files named as other files of the pass (the CLI's plain SQL
	// mode), and the query files of sqlc-generated code.
	seen := map[string]bool{}
	for _, t := range embedded {
		seen[pass.Fset.File(t.Pos(0, false)).Name()] = true
	}
	for _, name := range append(pass.OtherFiles, queryFiles...) {
		if gosql.IsSQLFile(name) && !seen[name] {
			seen[name] = true
			if t := c.SQLFile(name); t != nil {
				texts = append(texts, t)
			}
		}
	}
	c.lint(c.Parse(texts))
	if ms.File != nil && len(ms.File.Excludes) > 0 {
		// The module stage's findings in the package are dropped alike.
		c.summary.Excluded = func(pos token.Pos, category string) bool { return ms.Excluded(pass, pos, category) }
	}
	if held != nil {
		if pass.Pkg != nil && pass.ExportPackageFact != nil {
			if sums := carried(c.summary, c.importedSummaries()); len(sums) > 0 {
				pass.ExportPackageFact(txflow.NewFact(pass.Fset, sums))
			}
		}
		c.judgeWithImports(held, texts)
	}
	return c.summary, nil
}

// checker is the state of one package's analysis.
type checker struct {
	*gosql.Package
	// fix writes DSQL005's fixes.
	fix     *retryfix.Rewriter
	callers map[*ast.FuncDecl][]caller
	begins  []*beginCall
	// outCalls are calls of other packages of the module, and summary what
	// the module stage learns from the package (summary.go).
	outCalls    []outCall
	callAssigns []callAssign
	funcArgs    []funcArg
	varCalls    []varCall
	implicit    []implicitCall
	// ormLocks are row locks spelled as Go (gorm clause.Locking, goqu and
	// ent ForUpdate/ForShare, bun For("UPDATE")), and lockFragments the
	// bare lock clauses (" FOR UPDATE") code appends to queries: lock
	// sites when no query text the package runs holds them.
	ormLocks      []goLock
	lockFragments []goLock
	// retrySites are the constructs that re-run work on 40001, and
	// retryLoops the loop bodies among them.
	retrySites []txflow.Retry
	retryLoops map[ast.Node]bool
	// loopPreds are, per loop body, the predicates of other packages its
	// check for 40001 is left to.
	loopPreds   map[ast.Node][]string
	paramOwners map[types.Object]string // function-typed parameters' paramKeys
	summary     *txflow.Summary
	// loops caches whether a loop body checks for SQLSTATE 40001, and
	// helpers whether a function is a retry helper by its body.
	loops   map[ast.Node]bool
	helpers map[*ast.FuncDecl]bool
	// imported are the summaries the imports carry, by package
	// (importedSummaries).
	imported map[string]*txflow.Summary
	// serializable are the SERIALIZABLE isolation options the package's
	// functions set (DSQL003 weighs the guards of their transactions).
	serializable []scopedPos
	// internal collects our own failures (recovered panics).
	internal []error
}

// lockFragments records the bare lock clauses (" FOR UPDATE") code
// appends to queries.
func (c *checker) noteLockFragments(parsed []*gosql.Parsed) {
	for _, p := range parsed {
		for _, st := range p.Script.Stmts {
			if l := st.Locks; st.Fragment && !p.Text.Ref && len(l) > 0 {
				c.lockFragments = append(c.lockFragments, goLock{p.Text.Pos(l[0].Span.Start, false), p.Text.Pos(l[0].Span.End, true), p.Text.Scope, l[0].Strength})
			}
		}
	}
}

func (c *checker) lint(parsed []*gosql.Parsed) {
	cfg := c.Settings.Cfg
	fences := rules.NewFences()
	sqlFileCfg := cfg.ForSQLFile()
	scripts := c.Scripts
	if local := c.goSchema(parsed); local != nil {
		fences.UseKeysOf(local)
	}
	// Generated texts are learned last: the evidence cited is the query
	// file sqlc read. What runs once (a migration, a test's setup) shows
	// no contention.
	for _, generated := range []bool{false, true} {
		for _, p := range parsed {
			if p.Text.Generated != generated || c.Once(p.Text) {
				continue
			}
			for _, st := range p.Script.Stmts {
				c.learn(fences, p.Text, st)
			}
		}
	}
	c.noteLockFragments(parsed)
	c.flow(scripts)
	priors := c.txPriors(parsed)
	c.summary = c.summarize(scripts, parsed)
	// A literal clause is also a text of its own when a builder's rendering
	// holds it (squirrel's Suffix("FOR SHARE")): one finding at its place.
	type reported struct {
		pos, end token.Pos
		msg      string
	}
	seen := map[reported]bool{}
	// check runs the rules (or only one) over a text and hands each
	// finding, located and not suppressed, to report with the span of its
	// statement; quiet, when set, hears why DSQL003 left a write alone.
	check := func(p *gosql.Parsed, fences *rules.Fences, tx func(int) rules.TxView, only *rules.Rule, report func(analysis.Diagnostic, sqlparse.Span), quiet func(sqlparse.Span, string)) {
		t := p.Text
		ctx := &rules.Context{Config: cfg, Style: p.Script.Style, MaxParam: p.Script.MaxParam, Fences: fences, Only: only, Quiet: quiet, Tx: tx}
		if t.Node == nil {
			ctx.Config = sqlFileCfg // a .sql file runs as its migration runner applies it
		}
		// A test's setup, and a migration the migrator runs once, write
		// rows no other process races for.
		once := c.Once(t)
		for _, f := range c.safeCheck(ctx, p) {
			stmt := gosql.StatementAt(p.Script, f.Span.Start)
			if once && f.Rule == rules.UnfencedWrite {
				if quiet != nil {
					quiet(stmt, "a migration or a test's setup: it runs once, and no other process races for its rows")
				}
				continue
			}
			pos, end := t.Pos(f.Span.Start, false), t.Pos(f.Span.End, true)
			if c.suppressed(p, f, pos) {
				if quiet != nil {
					quiet(stmt, "a dsqllint:ignore directive silences "+f.Rule.ID+" here")
				}
				continue
			}
			if seen[reported{pos, end, f.Message}] {
				continue
			}
			seen[reported{pos, end, f.Message}] = true
			d := analysis.Diagnostic{Pos: pos, End: end, Category: f.Rule.ID, Message: f.Message, URL: f.Rule.DocURL()}
			if sf, ok := fixer.SuggestedFix(t, f.Fix); ok {
				d.SuggestedFixes = []analysis.SuggestedFix{sf}
			}
			report(d, stmt)
		}
	}
	var writes []*gosql.Parsed
	for _, p := range parsed {
		if p.Text.Ref || p.Text.Generated {
			continue // reported at the constant's declaration, or in the query file sqlc read
		}
		check(p, fences, c.txView(priors, p.Text), nil, func(d analysis.Diagnostic, _ sqlparse.Span) { c.Pass.Report(d) }, nil)
		if slices.ContainsFunc(p.Script.Stmts, func(st *sqlparse.Statement) bool { return st.Write != nil }) {
			writes = append(writes, p)
		}
	}
	c.reportDirectives(parsed)
	// The module stage judges the writes again with what every package
	// tells about fencing.
	c.summary.SetFences(fences)
	c.summary.Writes = func(module *rules.Fences, traced func(stmt token.Pos) (rules.TxView, bool)) []txflow.WriteVerdict {
		clear(seen)
		var out []txflow.WriteVerdict
		for _, p := range writes {
			verdict := func(stmt sqlparse.Span) txflow.WriteVerdict {
				return txflow.WriteVerdict{Pos: p.Text.Pos(stmt.Start, false), End: p.Text.Pos(stmt.End, true)}
			}
			t := p.Text
			check(p, module, joinViews(c.txView(priors, t), func(off int) (rules.TxView, bool) { return traced(t.Pos(off, false)) }), rules.UnfencedWrite, func(d analysis.Diagnostic, stmt sqlparse.Span) {
				v := verdict(stmt)
				v.Diag = &d
				out = append(out, v)
			}, func(stmt sqlparse.Span, why string) {
				v := verdict(stmt)
				v.Why = why
				out = append(out, v)
			})
		}
		return out
	}
}

// goSchema returns the tables the package's Go strings create (dendrite's
// `const schema = "CREATE TABLE ..."`, a Go migration's DDL), nil when
// none does.
func (c *checker) goSchema(parsed []*gosql.Parsed) *catalog.Catalog {
	var cat *catalog.Catalog
	for _, p := range parsed {
		if p.Text.Node == nil || !slices.ContainsFunc(p.Script.Stmts, func(st *sqlparse.Statement) bool { return st.Create != nil }) {
			continue
		}
		if cat == nil {
			cat = catalog.New()
		}
		cat.Apply(c.Pass.Fset.Position(p.Text.Pos(0, false)).Filename, p.Script)
	}
	return cat
}

// learn records what st, of text t, shows of contention.
func (c *checker) learn(fences *rules.Fences, t *gosql.Text, st *sqlparse.Statement) {
	at := ""
	if st.Write != nil || len(st.Locks) > 0 || len(st.Reads) > 0 {
		at = c.Where(t.Pos(st.Span.Start, false))
	}
	fences.Learn(c.Settings.Cfg, st, at)
}

// safeCheck runs the rules; a rule that panics on this SQL becomes an
// error naming the rule and the statement's position, and the run goes on.
func (c *checker) safeCheck(ctx *rules.Context, p *gosql.Parsed) []rules.Finding {
	fs := rules.Check(ctx, p.Script)
	for _, pn := range ctx.Panics {
		c.internal = append(c.internal, fmt.Errorf("%s: dsqllint internal error in rule %s on this SQL (please report): %v",
			c.Pass.Fset.Position(p.Text.Pos(pn.Span.Start, false)), pn.Rule.ID, pn.Value))
	}
	return fs
}
