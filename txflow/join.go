package txflow

import (
	"fmt"
	"go/token"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/rules"
)

// BeginRelated is the related information DSQL005 gives at the Begin.
const BeginRelated = "the transaction begins here, outside any 40001 retry"

// PoolRelated is the related information of a lock run on a pool handed
// to a function: where it is handed over.
const PoolRelated = "a pool, no transaction, is passed here to "

// maxPassDepth bounds how many calls a transaction is followed through.
const maxPassDepth = 8

// Module is the join of a module's package summaries: the module stage
// of the dsqllint command. It follows each transaction from the function
// that begins it through calls, interface methods (to every
// implementation in the module, a plugin registered in init included),
// closures and method values, to the statements run in it, and answers
// what no single package can:
//   - DSQL005 at a FOR UPDATE run in a transaction begun outside any
//     40001 retry, with the Begin and the calls in between as related
//     information;
//   - DSQL004 where a caller drops the result of a compare-and-swap write
//     another function hands back;
//   - which package findings it overrules: a DSQL005 whose Begin runs in
//     a closure another package's retry helper re-runs, and a DSQL003 at
//     a key-picked write that every transaction running it first locks
//     FOR UPDATE by the same key and compares, or fences with a
//     compare-and-swap write.
type Module struct {
	fset     *token.FileSet
	sums     []*Summary
	stmts    map[string][]stmtOf  // by function
	passes   map[string][]Pass    // by caller
	impls    map[string][]string  // interface method → implementations
	closures map[string][]Closure // by ParamKey(callee, arg)
	returns  map[result]Return
	retried  map[string]bool
	helpers  map[string]bool
	// retriedBegins, retriedSingles and fenced are what overrules drops.
	retriedBegins  map[token.Pos]bool
	retriedSingles map[token.Pos]bool
	fenced         [][2]token.Pos
	findings       []Finding
}

// stmtOf is a statement and the summary of its package.
type stmtOf struct {
	ParamStmt
	sum *Summary
}

type result struct {
	fn string
	k  int
}

// Join joins the summaries. fset must hold every summarised
// package's files (one go/packages load does).
func Join(fset *token.FileSet, sums []*Summary) *Module {
	m := &Module{fset: fset, stmts: map[string][]stmtOf{}, passes: map[string][]Pass{}, impls: map[string][]string{},
		closures: map[string][]Closure{}, returns: map[result]Return{}, retried: map[string]bool{}, retriedBegins: map[token.Pos]bool{}, retriedSingles: map[token.Pos]bool{}}
	for _, s := range sums {
		if s != nil {
			m.sums = append(m.sums, s)
		}
	}
	m.helpers = retryHelpers(m.sums)
	retried, unretried := map[string]bool{}, map[string]bool{}
	for _, s := range m.sums {
		for _, r := range s.Returns {
			m.returns[result{r.Func, r.Result}] = r
		}
		for _, st := range s.Stmts {
			m.stmts[st.Func] = append(m.stmts[st.Func], stmtOf{st, s})
		}
		for _, p := range s.Passes {
			m.passes[p.From] = append(m.passes[p.From], p)
		}
		for _, f := range s.Retried {
			retried[f] = true
		}
		for _, f := range s.Unretried {
			unretried[f] = true
		}
		for _, im := range s.Impls {
			m.impls[im.Iface] = append(m.impls[im.Iface], im.Method)
		}
		for _, cl := range s.Closures {
			k := ParamKey(cl.Callee, cl.Arg)
			m.closures[k] = append(m.closures[k], cl)
		}
		for _, h := range s.HelperCalls {
			if m.helpers[h.Helper] {
				retried[h.Callee] = true // run in a closure a retry helper re-runs
			} else {
				unretried[h.Callee] = true
			}
		}
		for _, b := range s.HelperBegins {
			if m.helpers[b.Helper] {
				m.retriedBegins[b.Pos] = true
			}
		}
	}
	// A function is retried when every call of it in the module runs in a
	// retry.
	for f := range retried {
		m.retried[f] = !unretried[f]
	}
	for _, s := range m.sums {
		for _, l := range s.SingleLocks {
			if (l.Helper != "" && m.helpers[l.Helper]) || m.retried[l.Func] {
				m.retriedSingles[l.Pos] = true
			}
		}
	}
	m.judge()
	m.findings = append(m.findings, m.droppedCASResults()...)
	sort.Slice(m.findings, func(i, j int) bool { return m.findings[i].Pos < m.findings[j].Pos })
	return m
}

// Findings are the module stage's own diagnostics.
func (m *Module) Findings() []Finding { return m.findings }

// Merge applies the module stage to the packages' diagnostics: it drops
// those the module overrules and adds the module's findings, but not one
// at a position where a package already reported the same rule (a lock
// whose Begin the package saw). diag reads a D's diagnostic; wrap makes a
// D of a module finding.
func Merge[D any](m *Module, diags []D, diag func(D) analysis.Diagnostic, wrap func(Finding) D) []D {
	type at struct {
		pos      token.Pos
		category string
	}
	reported := map[at]bool{}
	var out []D
	for _, d := range diags {
		if dg := diag(d); !m.overrules(dg) {
			out = append(out, d)
			reported[at{dg.Pos, dg.Category}] = true
		}
	}
	for _, f := range m.findings {
		if !reported[at{f.Pos, f.Category}] {
			out = append(out, wrap(f))
		}
	}
	return out
}

// overrules reports a package diagnostic the module stage shows wrong.
func (m *Module) overrules(d analysis.Diagnostic) bool {
	switch d.Category {
	case "DSQL005":
		if len(d.Related) == 0 {
			return m.retriedSingles[d.Pos]
		}
		return m.retriedBegins[d.Related[0].Pos]
	case "DSQL003":
		for _, sp := range m.fenced {
			if sp[0] <= d.Pos && d.Pos < sp[1] {
				return true
			}
		}
	}
	return false
}

// reached is a statement some transaction runs, and the calls that lead
// there.
type reached struct {
	stmtOf
	path []hop
	// novel marks a path through what a package's own analysis does not
	// follow: an interface, a closure, a transaction another function
	// begins.
	novel bool
	// closure marks a path through a function a caller passed, and
	// retried one passed by a call that runs in a retry: then that call
	// judges the retry, not the function that begins.
	closure, retried bool
	// impl marks a path through an interface method's implementation.
	impl bool
}

// reach calls visit for every statement run on argument arg of fn; at
// says how the path got there.
func (m *Module) reach(fn string, arg int, at reached, seen map[string]bool, visit func(reached)) {
	key := fmt.Sprintf("%s#%d", fn, arg)
	if seen[key] || len(at.path) > maxPassDepth {
		return
	}
	seen[key] = true
	for _, st := range m.stmts[fn] {
		if st.Param == arg {
			r := at
			r.stmtOf = st
			visit(r)
		}
	}
	for _, p := range m.passes[fn] {
		if p.Param == arg {
			next := at
			next.path = append(at.path[:len(at.path):len(at.path)], hop{p.Pos, p.Callee, p.From, p.Compared})
			m.reach(p.Callee, p.Arg, next, seen, visit)
		}
	}
	for _, impl := range m.impls[fn] {
		next := at
		next.novel, next.impl = true, true
		m.reach(impl, arg, next, seen, visit)
	}
	for _, cl := range m.closures[fn] {
		next := at
		next.novel, next.closure = true, true
		next.retried = at.retried || cl.Retried || m.helpers[cl.Helper]
		m.reach(cl.Fn, arg, next, seen, visit)
	}
}

// judge follows every transaction of the module.
func (m *Module) judge() {
	// Each lock is reported once, naming the best transaction reaching it.
	locks := map[token.Pos]lockFinding{}
	type spanUse struct{ runs, fenced int }
	writes := map[[2]token.Pos]*spanUse{}
	use := func(sp [2]token.Pos) *spanUse {
		u := writes[sp]
		if u == nil {
			u = &spanUse{}
			writes[sp] = u
		}
		return u
	}
	for _, s := range m.sums {
		for _, st := range s.Stmts {
			if st.Write && st.Param == NoHandle {
				use(st.Text).runs++ // on a pool or a value of unknown make
			}
		}
	}
	// Writes a method runs on a handle that is no transaction, and locks
	// run on a pool handed to a function: a statement of its own.
	singles := map[token.Pos]Finding{}
	for _, s := range m.sums {
		for _, p := range s.Passes {
			if p.Param != NoHandle {
				continue
			}
			m.reach(p.Callee, p.Arg, reached{path: []hop{{p.Pos, p.Callee, p.From, false}}}, map[string]bool{}, func(r reached) {
				switch {
				case r.Write:
					use(r.Text).runs++
				case r.Lock && p.Pool && !p.Retried && !m.helpers[p.Helper] && !r.retried && !m.retried[p.From] && !r.Quiet && r.sum.Enabled:
					if _, ok := singles[r.Pos]; !ok {
						singles[r.Pos] = Finding{Pkg: r.sum.Pkg, Diagnostic: singleLockDiagnostic(r.ParamStmt, p)}
					}
				}
			})
		}
	}
	for _, s := range m.sums {
		for bi, b := range s.Begins {
			novel := false
			if b.Via != "" {
				pgx, ok := m.returned(b.Via, b.Result)
				if !ok {
					continue // the helper's result is no transaction it begins
				}
				b.PGX, novel = pgx, true
			}
			var got []reached
			seen := map[string]bool{}
			for _, p := range s.Passes {
				if p.Begin == bi {
					m.reach(p.Callee, p.Arg, reached{path: []hop{{p.Pos, p.Callee, p.From, p.Compared}}, novel: novel}, seen, func(r reached) { got = append(got, r) })
				}
			}
			for _, r := range got {
				retried := b.Retried || m.helpers[b.Helper] || r.retried || (!r.closure && m.retried[b.Func])
				switch {
				case r.Lock && !retried && !r.Quiet && r.sum.Enabled && (r.sum != s || r.novel):
					if best, ok := locks[r.Pos]; !ok || better(s, r, best) {
						locks[r.Pos] = lockFinding{s, b, r}
					}
				case r.Write:
					u := use(r.Text)
					u.runs++
					if fencedBefore(r, got) {
						u.fenced++
					}
				}
			}
		}
	}
	for _, f := range locks {
		m.findings = append(m.findings, Finding{Pkg: f.r.sum.Pkg, Diagnostic: lockDiagnostic(m.fset, f.b, f.r.ParamStmt, f.r.path)})
	}
	// One DSQL005 a lock: a transaction's names its Begin.
	for pos, f := range singles {
		if _, ok := locks[pos]; !ok {
			m.findings = append(m.findings, f)
		}
	}
	for sp, u := range writes {
		if u.runs > 0 && u.fenced == u.runs {
			m.fenced = append(m.fenced, sp)
		}
	}
}

// lockFinding is a lock, and the Begin (of summary s) that reaches it.
type lockFinding struct {
	s *Summary
	b Begin
	r reached
}

// better prefers, as the transaction a lock finding names, one the
// program begins over one a test helper package does, then the shorter
// path.
func better(s *Summary, r reached, than lockFinding) bool {
	if t, tt := testSupport(s.Pkg), testSupport(than.s.Pkg); t != tt {
		return !t
	}
	return len(r.path) < len(than.r.path)
}

// testSupport reports a package that exists to test others.
func testSupport(path string) bool {
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, "test") || strings.HasSuffix(seg, "test") || strings.HasSuffix(seg, "tests") {
			return true
		}
	}
	return false
}

// returned reports whether result k of fn, or of an implementation of
// the interface method fn, is a transaction it begins (mocks and
// decorators implement the interface too: one plugin that begins is
// enough), and whether that is pgx's.
func (m *Module) returned(fn string, k int) (pgx, ok bool) {
	for _, f := range append([]string{fn}, m.impls[fn]...) {
		if r, ok := m.returns[result{f, k}]; ok {
			return r.PGX, true
		}
	}
	return false, false
}

// fencedBefore reports whether, in the transaction that runs the write w,
// a FOR UPDATE of the same row whose value the code compares, or a
// compare-and-swap write, runs first.
func fencedBefore(w reached, all []reached) bool {
	for _, l := range all {
		if (l.impl || w.impl) && l.sum != w.sum {
			continue // one transaction runs one plugin's methods
		}
		switch {
		case l.CAS:
		case l.Lock && l.Table == w.Table && covers(l.Keys, w.Keys):
			if !l.Compared && !slices.ContainsFunc(l.path, func(h hop) bool { return h.compared }) {
				continue // locked, but nothing checks what it read
			}
		default:
			continue
		}
		if runsBefore(l, w) {
			return true
		}
	}
	return false
}

// covers reports whether a lock pinning lockKeys holds the row a write
// pinning writeKeys picks.
func covers(lockKeys, writeKeys []string) bool {
	if len(lockKeys) == 0 {
		return false
	}
	for _, k := range lockKeys {
		if !slices.Contains(writeKeys, k) {
			return false
		}
	}
	return true
}

// runsBefore reports whether statement a runs before statement b of the
// same transaction: where their paths part, in one function, a's call
// comes first.
func runsBefore(a, b reached) bool {
	i := 0
	for i < len(a.path) && i < len(b.path) && a.path[i].pos == b.path[i].pos {
		i++
	}
	switch {
	case i < len(a.path) && i < len(b.path):
		return a.path[i].from == b.path[i].from && a.path[i].pos < b.path[i].pos
	case i < len(b.path):
		return a.Func == b.path[i].from && a.Pos < b.path[i].pos
	case i < len(a.path):
		return a.path[i].from == b.Func && a.path[i].pos < b.Pos
	}
	return a.Func == b.Func && a.Pos < b.Pos
}

// droppedCASResults reports DSQL004 where a caller drops the result a
// function of another package hands back from a compare-and-swap write.
func (m *Module) droppedCASResults() []Finding {
	cas := map[string]token.Pos{}
	for _, s := range m.sums {
		if s != nil {
			for _, r := range s.CASResults {
				cas[r.Func] = r.Pos
			}
		}
	}
	var out []Finding
	seen := map[token.Pos]bool{}
	for _, s := range m.sums {
		if !s.CASEnabled {
			continue
		}
		for _, d := range s.Drops {
			write, ok := cas[d.Callee]
			for _, impl := range m.impls[d.Callee] {
				if !ok {
					write, ok = cas[impl]
				}
			}
			if !ok || seen[d.Pos] {
				continue
			}
			seen[d.Pos] = true
			r := rules.UncheckedCAS
			out = append(out, Finding{Pkg: s.Pkg, Diagnostic: analysis.Diagnostic{
				Pos: d.Pos, End: d.End, Category: r.ID, URL: r.DocURL(),
				Message: r.Prefix() + rules.UncheckedCASResultMessage(shortName(d.Callee), d.How),
				Related: []analysis.RelatedInformation{{Pos: write, Message: "the compare-and-swap write whose result " + shortName(d.Callee) + " returns"}},
			}})
		}
	}
	return out
}

// shortName is a function's name without its package path:
// (*store.Queries).UpdateShard, store.Bump.
func shortName(key string) string {
	prefix, rest := "", key
	if strings.HasPrefix(key, "(") {
		if i := strings.Index(key, ")"); i > 0 {
			prefix, rest = "(", key[1:]
			if strings.HasPrefix(rest, "*") {
				prefix, rest = "(*", rest[1:]
			}
		}
	}
	if i := strings.LastIndex(rest, "/"); i >= 0 {
		rest = rest[i+1:]
	}
	return prefix + rest
}

// retryHelpers collects the module's retry helpers.
func retryHelpers(sums []*Summary) map[string]bool {
	helpers := map[string]bool{}
	for _, s := range sums {
		if s != nil {
			for _, h := range s.RetryHelpers {
				helpers[h] = true
			}
		}
	}
	return helpers
}

// Finding is a diagnostic of the module stage and the path of the
// package it falls in.
type Finding struct {
	Pkg string
	analysis.Diagnostic
}

// hop is a call, in function from, a transaction is passed through to
// function name; compared says from compares what the call returns.
type hop struct {
	pos      token.Pos
	name     string
	from     string
	compared bool
}

// singleLockDiagnostic is DSQL005 at a lock that runs on the pool p hands
// over, outside any transaction.
func singleLockDiagnostic(l ParamStmt, p Pass) analysis.Diagnostic {
	r := rules.LockWithoutRetry
	return analysis.Diagnostic{Pos: l.Pos, End: l.End, Category: r.ID, URL: r.DocURL(),
		Message: r.Prefix() + rules.SingleLockWithoutRetryMessage(false, p.PGX),
		Related: []analysis.RelatedInformation{{Pos: p.Pos, Message: PoolRelated + shortName(p.Callee)}}}
}

func lockDiagnostic(fset *token.FileSet, b Begin, l ParamStmt, path []hop) analysis.Diagnostic {
	p := fset.Position(b.Pos)
	begin := fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
	shape := "occ.RunTxWithRetry(ctx, db, func(tx *sql.Tx) (T, error) { ... })"
	if b.PGX {
		shape = "occpgx.RunTxWithRetry(ctx, pool, func(tx pgx.Tx) (T, error) { ... })"
	}
	r := rules.LockWithoutRetry
	d := analysis.Diagnostic{
		Pos: l.Pos, End: l.End, Category: r.ID, URL: r.DocURL(),
		Message: r.Prefix() + rules.LockWithoutRetryMessage("SELECT ... FOR UPDATE", begin, shape),
		Related: []analysis.RelatedInformation{{Pos: b.Pos, Message: BeginRelated}},
	}
	for _, h := range path {
		d.Related = append(d.Related, analysis.RelatedInformation{Pos: h.pos, Message: "and is passed to " + hopName(h.name)})
	}
	return d
}

// hopName says what a hop calls: a function, or the function passed as a
// parameter (txExecute's f).
func hopName(key string) string {
	if i := strings.LastIndex(key, "#"); i > 0 {
		return "the function given to " + shortName(key[:i])
	}
	return shortName(key)
}
