package txcheck

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/retryfix"
	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqltext"
	"github.com/dsqllint/dsqllint/txflow"
	"golang.org/x/tools/go/analysis"
)

// checker is the state of one package's transaction flow.
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
	// sentinelSet are the package's errors a serialization failure
	// becomes (sentinels), made on first use.
	sentinelSet map[types.Object]string
	// selected are the struct fields some selector of the package names
	// (unreadField), made on first use.
	selected map[*types.Var]bool
	// methods caches the method set of each of the package's pointer
	// types (methodsOf).
	methods map[*types.Pointer][]*types.Func
	// imported are the summaries the imports carry, by package
	// (importedSummaries).
	imported map[string]*txflow.Carried
	// serializable are the SERIALIZABLE isolation options the package's
	// functions set (DSQL003 weighs the guards of their transactions).
	serializable []scopedPos
	// txPass is this pass, whose facts carry the summaries; report
	// collects the flow's findings for the pass that reports.
	txPass *analysis.Pass
	report func(analysis.Diagnostic)
}

// noteLockFragments records the bare lock clauses (" FOR UPDATE") code
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
// imports carry and it joins, still encoded if they came encoded; read
// once.
func (c *checker) importedSummaries() map[string]*txflow.Carried {
	if c.imported != nil || c.Pass.Pkg == nil || c.txPass.ImportPackageFact == nil {
		return c.imported
	}
	c.imported = map[string]*txflow.Carried{}
	for _, imp := range c.Pass.Pkg.Imports() {
		var f txflow.Fact
		if !c.txPass.ImportPackageFact(imp, &f) {
			continue
		}
		for _, s := range f.Carried() {
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
func (c *checker) joined(s *txflow.Carried) bool {
	if c.Pass.Module != nil && c.Pass.Module.Path != "" {
		return true
	}
	tree := func(path string) string { first, _, _ := strings.Cut(path, "/"); return first }
	return s.Module == "" && tree(s.Pkg) == tree(c.Pass.Pkg.Path())
}

// Carried returns what the package's fact carries: its summary, when it
// says anything another package could use, and those of its imports, in
// the order of their paths.
func Carried(fset *token.FileSet, own *txflow.Summary, imported map[string]*txflow.Carried) []*txflow.Carried {
	var out []*txflow.Carried
	if own != nil && !own.Empty() {
		out = append(out, txflow.Carry(fset, own))
	}
	for _, path := range slices.Sorted(maps.Keys(imported)) {
		out = append(out, imported[path])
	}
	return out
}

// Imported returns the summaries the package's imports carry, in the
// order of their packages' paths, decoded into fset.
func Imported(fset *token.FileSet, imported map[string]*txflow.Carried) []*txflow.Summary {
	var out []*txflow.Summary
	for _, path := range slices.Sorted(maps.Keys(imported)) {
		if s := imported[path].Summary(fset); s != nil {
			out = append(out, s)
		}
	}
	return out
}

// Result is what the transaction flow finds in a package.
type Result struct {
	// Summary is what the package's functions do with transactions, which
	// the module stage and the package-by-package join read.
	Summary *txflow.Summary
	// Imported are the summaries the package's imports carry, by package
	// (none in the module stage).
	Imported map[string]*txflow.Carried
	// Diagnostics are the Go-flow findings, for the pass that reports.
	Diagnostics []analysis.Diagnostic
	// TxView tells DSQL003 what ran before each statement of a text in its
	// transaction, within the package.
	TxView func(t *sqltext.Text) func(int) rules.TxView
	// Err is our own failure (a recovered panic).
	Err error
}

// New returns the transaction-flow pass over what sites (gosql.New)
// finds. It exports each package's summary as a fact, with those of the
// packages below it, unless the dsqllint command joins them itself
// (modconf.Settings.ModuleStage).
func New(sites *analysis.Analyzer) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:             "txcheck",
		Doc:              "follow transactions, locks and retries through a package's functions and across packages",
		RunDespiteErrors: true,
		Requires:         []*analysis.Analyzer{sites},
		Run:              func(pass *analysis.Pass) (any, error) { return runTx(sites, pass), nil },
		ResultType:       reflect.TypeOf((*Result)(nil)),
		FactTypes:        []analysis.Fact{new(txflow.Fact)},
	}
}

func runTx(sites *analysis.Analyzer, pass *analysis.Pass) (res *Result) {
	p, _ := pass.ResultOf[sites].(*gosql.Package)
	if p == nil {
		return nil
	}
	res = &Result{}
	c := &checker{Package: p, txPass: pass, loops: map[ast.Node]bool{}, helpers: map[*ast.FuncDecl]bool{},
		report: func(d analysis.Diagnostic) { res.Diagnostics = append(res.Diagnostics, d) }}
	c.fix = &retryfix.Rewriter{Package: p}
	defer func() {
		if r := recover(); r != nil {
			res.Err = fmt.Errorf("dsqllint internal error (please report): %v", r)
		}
	}()
	c.observeSites()
	p.FlowSites = nil // read once: the drivers keep every package's Result to the end
	c.noteLockFragments(p.Parsed)
	c.flow(p.Scripts)
	c.transactionStatements(p.Scripts)
	c.lockingMigrator()
	c.autoMigrations()
	priors := c.txPriors(p.Parsed)
	c.summary = c.summarize(p.Scripts, p.Parsed)
	c.summary.SetFences(c.learnFences(p.Parsed))
	res.Summary = c.summary
	res.TxView = c.newTxView(priors).of
	if !p.Settings.ModuleStage && pass.Pkg != nil {
		res.Imported = c.importedSummaries()
		if sums := Carried(pass.Fset, c.summary, res.Imported); len(sums) > 0 && pass.ExportPackageFact != nil {
			pass.ExportPackageFact(txflow.NewFact(sums))
		}
	}
	return res
}
