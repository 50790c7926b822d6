package analyzer

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/catalog"
	"github.com/dsqllint/dsqllint/fixer"
	"github.com/dsqllint/dsqllint/modconf"
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
	if len(pass.Files) == 0 && !slices.ContainsFunc(pass.OtherFiles, isSQLFile) || len(pass.Files) > 0 && (pass.TypesInfo == nil || library(pass)) {
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
	c := &checker{pass: pass, settings: ms, funcs: map[*types.Func]*ast.FuncDecl{}}
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
	texts := c.collect()
	c.observeSites()
	if onlyNonSQLClient(pass.Pkg) {
		texts = texts[:0] // its strings are CQL or another language, not SQL
	}
	queryFiles, generated := c.sqlcFiles()
	c.generated = generated
	for _, t := range texts {
		if t.Node != nil && strings.HasPrefix(strings.TrimSpace(t.SQL), "-- name:") && generated[c.fileOf(t.Node.Pos())] {
			t.Generated = true
		}
	}
	embedded := c.embedded()
	texts = append(texts, embedded...)
	// .sql files named as other files of the pass (the CLI's plain SQL
	// mode), and the query files of sqlc-generated code.
	seen := map[string]bool{}
	for _, t := range embedded {
		seen[pass.Fset.File(t.Pos(0, false)).Name()] = true
	}
	for _, name := range append(pass.OtherFiles, queryFiles...) {
		if isSQLFile(name) && !seen[name] {
			seen[name] = true
			if t := c.sqlFile(name); t != nil {
				texts = append(texts, t)
			}
		}
	}
	c.lint(texts)
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
	pass     *analysis.Pass
	settings *modconf.Settings
	// db says the package reaches a database package (reachesDB).
	db bool
	// funcs maps the package's functions to their declarations, to follow
	// a transaction into the helpers a function calls.
	funcs map[*types.Func]*ast.FuncDecl
	// effects caches what a retry repeating a call of a package function
	// would repeat (DSQL005's fix).
	effects map[*types.Func]funcEffects
	// calls lists, per function, the calls it makes to package functions;
	// callers indexes them by the function called (callersOf).
	calls   map[ast.Node][]localCall
	callers map[*ast.FuncDecl][]caller
	// uses lists, per named constant, its uses as a query argument.
	uses map[types.Object][]*Text
	// defs maps local variables defined once to their initial value, to
	// follow q := "..."; tx.Exec(q).
	defs map[types.Object]ast.Expr
	// results maps variables defined once as the first of several results
	// of a call (q, err := adapter.NextOffsetQuery(...)) to that call,
	// for data flow of strings.
	results map[types.Object]ast.Expr
	// appends are the strings known at analysis time added to such a
	// variable afterwards (`if forUpdate { q += " FOR UPDATE" }`, `q += " "
	// + lock` with lock a dialect's clause): its text is read with all of
	// them, the fullest of its variants. A strings.Builder's WriteString
	// calls are kept the same way, under the builder.
	appends map[types.Object][]string
	// appendOrigins are where the appended strings were written.
	appendOrigins map[types.Object][][2]token.Pos
	// builderSteps are the chains a squirrel builder variable defined once
	// is extended with (`q = q.Where(...)`), in order.
	builderSteps map[types.Object][]ast.Expr
	// constReturns caches the constant strings a function returns.
	constReturns map[*types.Func][]ast.Expr
	// queries, begins and flow findings feed the Go-flow rules.
	queries []*queryCall
	// scripts are the package's SQL texts as parsed.
	scripts map[*Text]*sqlparse.Script
	begins  []*beginCall
	// sinkQueries are the calls of the package's own query functions
	// (sinks.go).
	sinkQueries []*queryCall
	// nonSQL are the constants and variables run through a non-SQL client
	// (notsql.go).
	nonSQL map[types.Object]bool
	// generated are the sqlc-generated Go files whose query file is
	// checked instead (sqlc.go).
	generated map[*ast.File]bool
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
	onceScopes  map[ast.Node]bool       // the functions of migrations
	migrations  bool                    // the package is all migrations
	keys        map[*types.Func]string  // funcKey, made once
	summary     *txflow.Summary
	// files caches Go source for building fixes.
	files map[string][]byte
	// loops caches whether a loop body checks for SQLSTATE 40001, and
	// helpers whether a function is a retry helper by its body.
	loops   map[ast.Node]bool
	helpers map[*ast.FuncDecl]bool
	// imported are the summaries the imports carry, by package
	// (importedSummaries).
	imported map[string]*txflow.Summary
	// fields maps function-typed struct fields to what the package
	// assigns them (fieldFuncs).
	fields map[*types.Var][]*types.Func
	// sprintfs are the fmt.Sprintf calls whose format is a literal, by it.
	sprintfs map[*ast.BasicLit]*ast.CallExpr
	// constTexts are the texts named constants declare, and sqlcStmts
	// where each query of the package's sqlc query files starts: where a
	// statement another text runs is reported (stmtAt).
	constTexts map[types.Object]*Text
	sqlcStmts  map[string]token.Pos
	// serializable are the SERIALIZABLE isolation options the package's
	// functions set (DSQL003 weighs the guards of their transactions).
	serializable []scopedPos
	// flowSites are the nodes the transaction flow reads, in source order
	// (observeSites).
	flowSites []flowSite
	// directives are the //dsqllint:ignore comments of the Go files.
	directives []*directive
	// evalSteps counts the work of one evaluation of a query argument
	// (eval.go), which maxEvalSteps bounds; prov collects where the text
	// evaluated was written.
	evalSteps int
	prov      *provenance
	// internal collects our own failures (recovered panics).
	internal []error
}

type localCall struct {
	fn   *ast.FuncDecl
	call *ast.CallExpr
	Site // a call inside a closure passed to a retry helper, or in a loop, may be retried
}

func isSQLFile(name string) bool { return strings.EqualFold(filepath.Ext(name), ".sql") }

func (c *checker) note(pos token.Pos, format string, args ...any) {
	if c.settings.Verbose {
		fmt.Fprintf(os.Stderr, "%s: dsqllint: %s\n", c.pass.Fset.Position(pos), fmt.Sprintf(format, args...))
	}
}

// parsedText is a text that parsed as SQL.
type parsedText struct {
	text   *Text
	script *sqlparse.Script
	dirs   []*directive // -- dsqllint:ignore comments inside the SQL
}

func (c *checker) lint(texts []*Text) {
	cfg := c.settings.Cfg
	fences := rules.NewFences()
	sqlFileCfg := cfg.ForSQLFile()
	var parsed []*parsedText
	type learned struct {
		text *Text
		st   *sqlparse.Statement
	}
	var toLearn, generated []learned
	for _, t := range texts {
		if (!t.Known && !sqlparse.LooksLikeSQL(t.SQL)) || (t.Const != nil && c.nonSQL[t.Const]) {
			continue
		}
		if !t.Known && t.Node != nil && len(c.uses[t.Const]) == 0 && sqlparse.BareUtility(t.SQL) {
			continue // "lock held": a metric's name, not LOCK TABLE held
		}
		s := sqlparse.Parse(t.SQL)
		if s.Skipped != "" {
			c.note(t.Pos(0, false), "skipped SQL text: %s", s.Skipped)
			continue
		}
		p := &parsedText{text: t, script: c.nameHoles(t, s), dirs: c.sqlDirectives(t, s)}
		parsed = append(parsed, p)
		for _, st := range p.script.Stmts {
			if l := st.Locks; st.Fragment && !t.Ref && len(l) > 0 {
				c.lockFragments = append(c.lockFragments, goLock{t.Pos(l[0].Span.Start, false), t.Pos(l[0].Span.End, true), t.Scope, l[0].Strength})
			}
			if t.Generated {
				generated = append(generated, learned{t, st})
			} else {
				toLearn = append(toLearn, learned{t, st})
			}
		}
	}
	c.onceScopes, c.migrations = migrationScopes(c.pass.Pkg.Path(), c.pass.Files, parsed)
	if local := c.goSchema(parsed); local != nil {
		fences.UseKeysOf(local)
	}
	// Generated texts are learned last: the evidence cited is the query
	// file sqlc read. What runs once (a migration, a test's setup) shows
	// no contention.
	for _, l := range append(toLearn, generated...) {
		if !c.once(l.text) {
			c.learn(fences, l.text, l.st)
		}
	}
	scripts := make(map[*Text]*sqlparse.Script, len(parsed))
	c.constTexts, c.sqlcStmts = map[types.Object]*Text{}, map[string]token.Pos{}
	for _, p := range parsed {
		scripts[p.text] = p.script
		t := p.text
		switch {
		case t.Const != nil && !t.Ref:
			c.constTexts[t.Const] = t
		case t.Node == nil:
			for _, st := range p.script.Stmts {
				if name, _ := sqlparse.SqlcQuery(p.script.Text, st.Span.Start); name != "" {
					c.sqlcStmts[name] = t.Pos(st.Span.Start, false)
				}
			}
		}
	}
	c.scripts = scripts
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
	check := func(p *parsedText, fences *rules.Fences, tx func(int) rules.TxView, only *rules.Rule, report func(analysis.Diagnostic, sqlparse.Span), quiet func(sqlparse.Span, string)) {
		t := p.text
		ctx := &rules.Context{Config: cfg, Style: p.script.Style, MaxParam: p.script.MaxParam, Fences: fences, Only: only, Quiet: quiet, Tx: tx}
		if t.Node == nil {
			ctx.Config = sqlFileCfg // a .sql file runs as its migration runner applies it
		}
		// A test's setup, and a migration the migrator runs once, write
		// rows no other process races for.
		once := c.once(t)
		for _, f := range c.safeCheck(ctx, p) {
			stmt := statementAt(p.script, f.Span.Start)
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
	var writes []*parsedText
	for _, p := range parsed {
		if p.text.Ref || p.text.Generated {
			continue // reported at the constant's declaration, or in the query file sqlc read
		}
		check(p, fences, c.txView(priors, p.text), nil, func(d analysis.Diagnostic, _ sqlparse.Span) { c.pass.Report(d) }, nil)
		if slices.ContainsFunc(p.script.Stmts, func(st *sqlparse.Statement) bool { return st.Write != nil }) {
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
				return txflow.WriteVerdict{Pos: p.text.Pos(stmt.Start, false), End: p.text.Pos(stmt.End, true)}
			}
			t := p.text
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

// statementAt returns the span of the statement of s holding offset off.
func statementAt(s *sqlparse.Script, off int) sqlparse.Span {
	for _, st := range s.Stmts {
		if st.Span.Start <= off && off < st.Span.End {
			return st.Span
		}
	}
	return sqlparse.Span{Start: off, End: off}
}

// goSchema returns the tables the package's Go strings create (dendrite's
// `const schema = "CREATE TABLE ..."`, a Go migration's DDL), nil when
// none does.
func (c *checker) goSchema(parsed []*parsedText) *catalog.Catalog {
	var cat *catalog.Catalog
	for _, p := range parsed {
		if p.text.Node == nil || !slices.ContainsFunc(p.script.Stmts, func(st *sqlparse.Statement) bool { return st.Create != nil }) {
			continue
		}
		if cat == nil {
			cat = catalog.New()
		}
		cat.Apply(c.pass.Fset.Position(p.text.Pos(0, false)).Filename, p.script)
	}
	return cat
}

// once reports a text that runs once, or never on DSQL, so that no other
// process races for the rows it writes: a test's, a test-support
// package's, a SQLite driver's, and a migration's (a .sql file in the
// schema's directories, or a Go file there of a package named for
// migrations, a function of a Go migration list, a package of
// migrations). A store's own code beside its schema.sql runs every day.
func (c *checker) once(t *Text) bool {
	if t.Node != nil && (c.migrations || c.inTest(t.Node.Pos())) || t.Scope != nil && c.onceScopes[t.Scope] {
		return true
	}
	file := c.pass.Fset.Position(t.Pos(0, false)).Filename
	if t.Node == nil && c.settings.SQLiteQueries(file) || txflow.TestSupport(c.pass.Pkg.Path()) {
		// A SQLite driver's queries never run on DSQL; a package that
		// exists to test others (riverdrivertest) races no one.
		return true
	}
	inMigrations := c.settings.MigrationDirs[filepath.Dir(file)]
	return inMigrations && (t.Node == nil || strings.Contains(path.Base(c.pass.Pkg.Path()), "migrat"))
}

// migrationScopes returns the functions that change the schema (CREATE
// TABLE, ALTER TABLE ...), and their siblings in a composite literal that
// holds one of them: a Go migration list (`var migrations =
// []func(*sql.Tx) error{...}`, `{Version: 3, Up: func...}`), whose every
// step runs once. A package where at least half the functions that run
// SQL change the schema (one function per version), or one named for
// migrations that changes it at all, is all migrations (whole).
func migrationScopes(pkg string, files []*ast.File, parsed []*parsedText) (scopes map[ast.Node]bool, whole bool) {
	ddl, sql := map[ast.Node]bool{}, map[ast.Node]bool{}
	for _, p := range parsed {
		if p.text.Scope == nil {
			continue
		}
		sql[p.text.Scope] = true
		if slices.ContainsFunc(p.script.Stmts, func(st *sqlparse.Statement) bool { return st.Create != nil || len(st.Changes) > 0 }) {
			ddl[p.text.Scope] = true
		}
	}
	if len(ddl) == 0 {
		return nil, false
	}
	if len(ddl) >= 2 && 2*len(ddl) >= len(sql) || strings.Contains(path.Base(pkg), "migrat") {
		return nil, true
	}
	scopes = maps.Clone(ddl)
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			var funcs []ast.Node
			migrates := false
			ast.Inspect(lit, func(n ast.Node) bool {
				if fl, ok := n.(*ast.FuncLit); ok {
					funcs = append(funcs, fl)
					migrates = migrates || ddl[fl]
					return false
				}
				return true
			})
			if migrates {
				for _, fl := range funcs {
					scopes[fl] = true
				}
			}
			return true
		})
	}
	return scopes, false
}

// learn records what st, of text t, shows of contention.
func (c *checker) learn(fences *rules.Fences, t *Text, st *sqlparse.Statement) {
	at := ""
	if st.Write != nil || len(st.Locks) > 0 || len(st.Reads) > 0 {
		at = c.where(t.Pos(st.Span.Start, false))
	}
	fences.Learn(c.settings.Cfg, st, at)
}

// where names a position as evidence is cited: "store/task.go:124",
// relative to the module root.
func (c *checker) where(pos token.Pos) string {
	p := c.pass.Fset.Position(pos)
	name := filepath.Base(p.Filename)
	if rel, err := filepath.Rel(c.settings.Root, p.Filename); err == nil && c.settings.Root != "" && filepath.IsLocal(rel) {
		name = filepath.ToSlash(rel)
	}
	return name + ":" + strconv.Itoa(p.Line)
}

// safeCheck runs the rules; a rule that panics on this SQL becomes an
// error naming the rule and the statement's position, and the run goes on.
func (c *checker) safeCheck(ctx *rules.Context, p *parsedText) []rules.Finding {
	fs := rules.Check(ctx, p.script)
	for _, pn := range ctx.Panics {
		c.internal = append(c.internal, fmt.Errorf("%s: dsqllint internal error in rule %s on this SQL (please report): %v",
			c.pass.Fset.Position(p.text.Pos(pn.Span.Start, false)), pn.Rule.ID, pn.Value))
	}
	return fs
}
