package analyzer

import (
	"errors"
	"fmt"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/fixer"
	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/modconf"
	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
	"github.com/dsqllint/dsqllint/txcheck"
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
	sites := gosql.New(s)
	tx := txcheck.New(sites)
	a := &analysis.Analyzer{
		Name:             "dsqllint",
		Doc:              doc,
		URL:              "https://github.com/dsqllint/dsqllint/blob/main/docs/rules/README.md",
		RunDespiteErrors: true,
		Requires:         []*analysis.Analyzer{sites, tx},
		Run:              func(pass *analysis.Pass) (any, error) { return run(s, sites, tx, pass) },
		ResultType:       reflect.TypeOf((*txflow.Summary)(nil)),
	}
	staged.Store(a, stage{s, tx})
	s.Register(&a.Flags)
	return a, s
}

// linter runs the rules over a package's SQL and reports what they and
// the transaction flow found.
type linter struct {
	*gosql.Package
	// pass is the reporting pass; tx what the transaction flow found.
	pass *analysis.Pass
	tx   *txcheck.Result
	// sum is this pass's copy of the flow's summary, with the module
	// stage's hooks: importers read the one txcheck exported as a fact
	// while this pass runs (in one process, under the checker and
	// golangci-lint), so it is not written after.
	sum *txflow.Summary
	// internal collects our own failures (recovered panics).
	internal []error
}

func run(s *modconf.Settings, sites, tx *analysis.Analyzer, pass *analysis.Pass) (_ any, err error) {
	p, _ := pass.ResultOf[sites].(*gosql.Package)
	res, _ := pass.ResultOf[tx].(*txcheck.Result)
	if p == nil || res == nil {
		// Nothing to look at (a dependency loaded from export data, a
		// library), or the module's settings did not load: say why.
		if !gosql.Skip(pass) {
			if _, err := s.ForPackage(pass); err != nil {
				return nil, err
			}
		}
		return (*txflow.Summary)(nil), nil
	}
	ms := p.Settings
	if ms.FactsOnly {
		return res.Summary, errors.Join(p.Err, res.Err)
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
	c := &linter{Package: p, pass: pass, tx: res}
	// A bug of ours must not crash go vet for the whole repository: it
	// becomes this package's error, after every finding made so far.
	defer func() {
		if r := recover(); r != nil {
			c.internal = append(c.internal, fmt.Errorf("dsqllint internal error (please report): %v", r))
		}
		if held != nil {
			held.flush() // what was found before a failure of ours is still reported
		}
		err = errors.Join(append([]error{p.Err, res.Err}, c.internal...)...)
	}()
	for _, d := range res.Diagnostics {
		pass.Report(d)
	}
	if res.Summary == nil {
		return res.Summary, nil // the flow failed: its error says so
	}
	sum := *res.Summary
	c.sum = &sum
	c.lint(p.Parsed)
	if ms.File != nil && len(ms.File.Excludes) > 0 {
		// The module stage's findings in the package are dropped alike.
		c.sum.Excluded = func(pos token.Pos, category string) bool { return ms.Excluded(pass, pos, category) }
	}
	if held != nil {
		c.judgeWithImports(held, p.Texts)
	}
	return c.sum, nil
}

func (c *linter) lint(parsed []*gosql.Parsed) {
	cfg := c.Settings.Cfg
	fences := c.sum.Fences()
	sqlFileCfg := cfg.ForSQLFile()
	type runnerFile struct {
		runner string
		down   bool
	}
	runnerCfg := map[runnerFile]*rules.Config{} // the files a migration tool the module requires applies whole
	var execFileCfg *rules.Config               // the embedded files the package's Go code runs whole
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
	// The module stage judges every write again, whole: its verdict
	// replaces the package's (txflow.Merge), which is not worth making.
	var later *rules.Rule
	if c.Settings.ModuleStage {
		later = rules.UnfencedWrite
	}
	ctx := new(rules.Context) // one for every text: a package has thousands
	check := func(p *gosql.Parsed, fences *fencing.Fences, tx func(int) rules.TxView, only *rules.Rule, report func(analysis.Diagnostic, sqlparse.Span), quiet func(sqlparse.Span, string)) {
		t := p.Text
		*ctx = rules.Context{Config: cfg, Style: p.Script.Style, MaxParam: p.Script.MaxParam, Fences: fences, Only: only, Quiet: quiet, Tx: tx}
		if only == nil {
			ctx.Later = later
		}
		if t.Node == nil {
			ctx.Config = sqlFileCfg // a .sql file runs as its migration runner applies it
			if cfg.MigrationTx == rules.TxAuto {
				if f := c.Pass.Fset.File(t.Pos(0, false)); f != nil && c.RunWhole(f.Name()) {
					if execFileCfg == nil {
						execFileCfg = cfg.ForRunner(rules.RunnerExec, false)
					}
					ctx.Config = execFileCfg // embedded, and run whole by one Exec of the package
				} else if f != nil {
					name := filepath.Base(f.Name())
					if r := rules.FileRunner(c.Settings.Requires, name, t.SQL); r != "" {
						key := runnerFile{r, strings.HasSuffix(name, ".down.sql")}
						if runnerCfg[key] == nil {
							runnerCfg[key] = cfg.ForRunner(key.runner, key.down)
						}
						ctx.Config = runnerCfg[key]
					}
				}
			}
		}
		// A test's setup, and a migration the migrator runs once, write
		// rows no other process races for.
		once := c.Once(t)
		for _, f := range c.safeCheck(ctx, p) {
			if f.Rule == rules.RowLimit && t.Node != nil && c.InTest(t.Node.Pos()) {
				continue // a test's fixture: its tables hold a handful of rows, not 3,000
			}
			if f.Rule == rules.DDLTransaction && t.Node != nil && c.InTest(t.Node.Pos()) && !c.RunByQuery(t) {
				continue // a test's script no query call is seen running: whole or split, the test decides
			}
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
		check(p, fences, c.tx.TxView(p.Text), nil, func(d analysis.Diagnostic, _ sqlparse.Span) { c.pass.Report(d) }, nil)
		if slices.ContainsFunc(p.Script.Stmts, func(st *sqlparse.Statement) bool { return st.Write != nil }) {
			writes = append(writes, p)
		}
	}
	c.reportDirectives(parsed)
	// The module stage judges the writes again with what every package
	// tells about fencing.
	c.sum.Writes = func(module *fencing.Fences, traced func(stmt token.Pos) (rules.TxView, bool)) []txflow.WriteVerdict {
		clear(seen)
		var out []txflow.WriteVerdict
		for _, p := range writes {
			verdict := func(stmt sqlparse.Span) txflow.WriteVerdict {
				return txflow.WriteVerdict{Pos: p.Text.Pos(stmt.Start, false), End: p.Text.Pos(stmt.End, true)}
			}
			t := p.Text
			var quiet func(sqlparse.Span, string)
			if c.Settings.Explain { // -why: why each write is left alone
				quiet = func(stmt sqlparse.Span, why string) {
					v := verdict(stmt)
					v.Why = why
					out = append(out, v)
				}
			}
			check(p, module, txcheck.JoinViews(c.tx.TxView(t), func(off int) (rules.TxView, bool) { return traced(t.Pos(off, false)) }), rules.UnfencedWrite, func(d analysis.Diagnostic, stmt sqlparse.Span) {
				v := verdict(stmt)
				v.Diag = &d
				out = append(out, v)
			}, quiet)
		}
		return out
	}
}

// safeCheck runs the rules; a rule that panics on this SQL becomes an
// error naming the rule and the statement's position, and the run goes on.
func (c *linter) safeCheck(ctx *rules.Context, p *gosql.Parsed) []rules.Finding {
	fs := rules.Check(ctx, p.Script)
	for _, pn := range ctx.Panics {
		c.internal = append(c.internal, fmt.Errorf("%s: dsqllint internal error in rule %s on this SQL (please report): %v",
			c.Pass.Fset.Position(p.Text.Pos(pn.Span.Start, false)), pn.Rule.ID, pn.Value))
	}
	return fs
}
