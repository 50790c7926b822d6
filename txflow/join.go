package txflow

import (
	"fmt"
	"go/token"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/rules"
)

// BeginRelated is the related information DSQL005 gives at the Begin.
const BeginRelated = "the transaction begins here, outside any 40001 retry"

// maxPassDepth bounds how many calls a transaction is followed through.
const maxPassDepth = 8

// Module is the join of a module's package summaries: the module stage
// of the dsqllint command. It answers what no single package can:
//   - DSQL005 at each lock site some way of running leaves outside a
//     40001 retry (locks.go), following each lock back through calls,
//     interface methods (to every implementation in the module, a plugin
//     registered in init included), closures and method values to where
//     its transaction begins;
//   - DSQL004 where a caller drops the result of a compare-and-swap write
//     another function hands back;
//   - DSQL003 with what every package tells about fencing, except at a
//     key-picked write that every transaction running it first locks FOR
//     UPDATE by the same key and compares, or fences with a
//     compare-and-swap write. Its DSQL003 and DSQL005 replace the
//     packages' (Merge).
type Module struct {
	fset     *token.FileSet
	home     string // JoinPackage's package, "" for the whole module
	sums     []*Summary
	stmts    map[string][]stmtOf  // by function
	passes   map[string][]Pass    // by caller
	impls    map[string][]string  // interface method → implementations
	closures map[string][]Closure // by ParamKey(callee, arg)
	returns  map[result]Return
	// views are, per write text, what runs before it in the transactions
	// that run it (DSQL003).
	views     map[token.Pos]*txView
	findings  []Finding
	decisions []Decision
	// writeDecisions are DSQL003's verdicts, reported or not.
	writeDecisions []WriteVerdict
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
	return join(fset, sums, "")
}

// JoinPackage is the module stage as a driver that runs one package at a
// time does it, for package home: sums are its own summary and those its
// imports carry (Fact). Its callers are out of view (a function no one
// in view calls may be called inside a retry), so it reports what it
// shows unretried: its own locks, and the locks of imported packages
// whose transaction it begins, or runs on a pool, outside any retry —
// there, naming the lock. Only home's writes are judged again.
func JoinPackage(fset *token.FileSet, home string, sums []*Summary) *Module {
	return join(fset, sums, home)
}

func join(fset *token.FileSet, sums []*Summary, home string) *Module {
	var nstmts int
	for _, s := range sums {
		if s != nil {
			nstmts += len(s.Stmts)
		}
	}
	// Sized once: growing by doubling was a tenth of the join's memory.
	m := &Module{fset: fset, home: home, stmts: make(map[string][]stmtOf, nstmts), passes: map[string][]Pass{}, impls: map[string][]string{},
		closures: map[string][]Closure{}, returns: map[result]Return{}}
	for _, s := range sums {
		if s != nil {
			m.sums = append(m.sums, s)
		}
	}
	// In the order of their packages' paths, whatever order a driver
	// finished them in: the same module gives the same findings.
	slices.SortStableFunc(m.sums, func(a, b *Summary) int { return strings.Compare(a.Pkg, b.Pkg) })
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
		for _, im := range s.Impls {
			m.addImpl(im)
		}
		for _, cl := range s.Closures {
			k := ParamKey(cl.Callee, cl.Arg)
			m.closures[k] = append(m.closures[k], cl)
		}
	}
	matched := matchImpls(m.sums) // the lock graph's too: matched once
	for _, im := range matched {
		m.addImpl(im)
	}
	m.judgeWrites()
	m.findings = append(m.findings, m.unfencedWrites()...)
	g := newLockGraph(fset, m.sums, matched, home != "")
	g.home = home
	locks, decisions := g.judgeSites()
	m.findings = append(m.findings, locks...)
	m.decisions = decisions
	m.findings = append(m.findings, m.droppedCASResults()...)
	byPkg := map[string]*Summary{}
	for _, s := range m.sums {
		byPkg[s.Pkg] = s
	}
	m.findings = slices.DeleteFunc(m.findings, func(f Finding) bool {
		s := byPkg[f.Pkg]
		return s != nil && s.Excluded != nil && s.Excluded(f.Pos, f.Category)
	})
	sort.Slice(m.findings, func(i, j int) bool {
		return positionLess(fset.Position(m.findings[i].Pos), fset.Position(m.findings[j].Pos))
	})
	return m
}

// addImpl records an implementation once.
func (m *Module) addImpl(im Impl) {
	if !slices.Contains(m.impls[im.Iface], im.Method) {
		m.impls[im.Iface] = append(m.impls[im.Iface], im.Method)
	}
}

// Decisions are DSQL005's judgements of every lock site, for -why.
func (m *Module) Decisions() []Decision { return m.decisions }

// matchImpls finds the implementations summaries record by method set:
// each type whose methods include every method of an interface, by name
// and signature, implements it. A package's own Impls see only the
// interfaces it imports.
func matchImpls(sums []*Summary) []Impl {
	type typ struct {
		names map[string]bool // made when first compared, as bySig
		set   MethodSet
		bySig map[string]string
	}
	var types []*typ
	for _, s := range sums {
		for _, t := range s.Types {
			types = append(types, &typ{set: t})
		}
	}
	var out []Impl
	for _, s := range sums {
		for _, it := range s.Interfaces {
			var methods []Method // made when first compared
		types:
			for _, t := range types {
				if t.names == nil {
					t.names = make(map[string]bool, len(t.set.Names))
					for _, n := range t.set.Names {
						t.names[n] = true
					}
				}
				for _, n := range it.Names {
					if !t.names[n] {
						continue types
					}
				}
				if methods == nil {
					methods = it.methods()
				}
				if t.bySig == nil {
					t.bySig = map[string]string{}
					for _, m := range t.set.methods() {
						t.bySig[m.Sig] = m.Key
					}
				}
				for _, m := range methods {
					if _, ok := t.bySig[m.Sig]; !ok {
						continue types
					}
				}
				for _, m := range methods {
					out = append(out, Impl{Iface: m.Key, Method: t.bySig[m.Sig]})
				}
			}
		}
	}
	return out
}

// Findings are the module stage's own diagnostics.
func (m *Module) Findings() []Finding { return m.findings }

// Merge applies the module stage to the packages' diagnostics. The rules
// the module judges again with every package in view (DSQL003, DSQL005)
// replace the packages' verdicts: a package diagnostic the module also
// makes takes the module's content (under each package that reported it,
// a test variant included), one it does not make is dropped, and the
// module's other findings are added. diag reads a D's diagnostic, with
// sets it, wrap makes a D of a module finding.
func Merge[D any](m *Module, diags []D, diag func(D) analysis.Diagnostic, with func(D, analysis.Diagnostic) D, wrap func(Finding) D) []D {
	type at struct {
		pos      token.Pos
		category string
	}
	module := make(map[at]analysis.Diagnostic, len(m.findings))
	for _, f := range m.findings {
		if _, dup := module[at{f.Pos, f.Category}]; !dup {
			module[at{f.Pos, f.Category}] = f.Diagnostic
		}
	}
	reported := make(map[at]bool, len(diags)+len(m.findings))
	out := make([]D, 0, len(diags)+len(m.findings))
	for _, d := range diags {
		dg := diag(d)
		k := at{dg.Pos, dg.Category}
		if rejudged(dg.Category) {
			md, ok := module[k]
			if !ok {
				continue // the module shows it wrong
			}
			d = with(d, md)
		}
		out = append(out, d)
		reported[k] = true
	}
	for _, f := range m.findings {
		if k := (at{f.Pos, f.Category}); !reported[k] {
			reported[k] = true
			out = append(out, wrap(f))
		}
	}
	return out
}

// rejudged reports the rules the module stage judges again, whole: its
// verdict replaces the packages'.
func rejudged(category string) bool {
	return category == "DSQL005" || category == "DSQL003"
}

// unfencedWrites judges every package's writes (DSQL003) with what all
// the module's statements tell about fencing and what the transactions
// that run each write do before it.
func (m *Module) unfencedWrites() []Finding {
	fences := map[string]*fencing.Fences{} // by module: a driver for SQLite keeps its own
	for _, s := range m.sums {
		if s.Foreign {
			continue // another module's fences guard its own tables
		}
		if m.home != "" {
			// The package's fences with those its imports of its module
			// carry, merged into copies: Merge takes over what it is
			// given, and other packages share these.
			if s.Pkg == m.home && s.fences != nil {
				f := s.fences.Clone()
				for _, o := range m.sums {
					if o != s && !o.Foreign && o.Module == s.Module && o.fences != nil {
						f.Merge(o.fences.Clone())
					}
				}
				fences[s.Module] = f
			}
			continue
		}
		if fences[s.Module] == nil {
			fences[s.Module] = fencing.NewFences()
		}
		fences[s.Module].Merge(s.fences)
	}
	traced := func(stmt token.Pos) (rules.TxView, bool) {
		v := m.views[stmt]
		if v == nil || v.runs == 0 {
			return rules.TxView{}, false
		}
		return rules.TxView{Every: v.every, Some: v.some}, true
	}
	type key struct {
		pos token.Pos
		msg string
	}
	// The packages' writes are judged in parallel: the module stage runs
	// after every package, on one core otherwise. Each package's verdicts
	// read only its own state and the module's, which no longer changes.
	var judged []int
	for i, s := range m.sums {
		if s.Writes != nil && s.FenceEnabled && !s.Foreign && (m.home == "" || s.Pkg == m.home) {
			judged = append(judged, i)
		}
	}
	verdicts := make([][]WriteVerdict, len(m.sums))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(judged)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			readers := map[string]*fencing.Fences{} // Of caches its answers: one cache per goroutine
			for i := range next {
				s := m.sums[i]
				r, ok := readers[s.Module]
				if !ok {
					r = fences[s.Module].Reader()
					readers[s.Module] = r
				}
				verdicts[i] = s.Writes(r, traced)
			}
		}()
	}
	for _, i := range judged {
		next <- i
	}
	close(next)
	wg.Wait()
	seen := map[key]bool{}
	var out []Finding
	for _, i := range judged {
		s := m.sums[i]
		for _, v := range verdicts[i] {
			d := v.Diag
			switch {
			case d == nil:
				m.writeDecisions = append(m.writeDecisions, v)
			case !seen[key{d.Pos, d.Message}]:
				seen[key{d.Pos, d.Message}] = true
				out = append(out, Finding{Pkg: s.Pkg, Diagnostic: *d})
				m.writeDecisions = append(m.writeDecisions, v)
			}
		}
	}
	return out
}

// WriteDecisions are DSQL003's judgements of every write, for -why.
func (m *Module) WriteDecisions() []WriteVerdict { return m.writeDecisions }

// txView gathers what runs before a write in each transaction that runs
// it: every is what all of them run, some what one of them does.
type txView struct {
	runs        int
	every, some []rules.Prior
}

func (v *txView) add(priors []rules.Prior) {
	if v.runs == 0 {
		v.every = slices.Clone(priors)
	} else {
		v.every = slices.DeleteFunc(v.every, func(p rules.Prior) bool {
			return !slices.ContainsFunc(priors, func(q rules.Prior) bool { return samePrior(p, q) })
		})
	}
	v.runs++
	for _, p := range priors {
		if len(v.some) < 32 && !slices.ContainsFunc(v.some, func(q rules.Prior) bool { return samePrior(p, q) }) {
			v.some = append(v.some, p)
		}
	}
}

func samePrior(p, q rules.Prior) bool {
	return p.Kind == q.Kind && p.Table == q.Table && slices.Equal(p.Keys, q.Keys)
}

// reached is a statement some transaction runs, and the calls that lead
// there.
type reached struct {
	stmtOf
	path []hop
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
			next.path = append(at.path[:len(at.path):len(at.path)], hop{p.Pos, p.Callee, p.From})
			m.reach(p.Callee, p.Arg, next, seen, visit)
		}
	}
	for _, impl := range m.impls[fn] {
		next := at
		next.impl = true
		m.reach(impl, arg, next, seen, visit)
	}
	for _, cl := range m.closures[fn] {
		m.reach(cl.Fn, arg, at, seen, visit)
	}
}

// judgeWrites follows every transaction of the module to the writes it
// runs, recording for each what runs before it: the locks, advisory locks,
// inserts and compare-and-swaps of the same transaction, and its
// isolation. A write run on a pool, or by a method on a handle that is no
// transaction, is a run with nothing before it.
func (m *Module) judgeWrites() {
	m.views = map[token.Pos]*txView{}
	view := func(sp token.Pos) *txView {
		v := m.views[sp]
		if v == nil {
			v = &txView{}
			m.views[sp] = v
		}
		return v
	}
	for _, s := range m.sums {
		for _, st := range s.Stmts {
			if st.Write && st.Param == NoHandle {
				view(st.At).add(nil) // on a pool or a value of unknown make
			}
		}
	}
	// Writes a method runs on a handle that is no transaction: a
	// statement of its own. Each function is explored once for all.
	seen := map[string]bool{}
	for _, s := range m.sums {
		for _, p := range s.Passes {
			if p.Param != NoHandle {
				continue
			}
			m.reach(p.Callee, p.Arg, reached{path: []hop{{p.Pos, p.Callee, p.From}}}, seen, func(r reached) {
				if r.Write {
					view(r.At).add(nil)
				}
			})
		}
	}
	for _, s := range m.sums {
		for bi, b := range s.Begins {
			if b.Via != "" {
				if _, ok := m.returned(b.Via, b.Result); !ok {
					continue // the helper's result is no transaction it begins
				}
			}
			var got []reached
			seen := map[string]bool{}
			for _, p := range s.Passes {
				if p.Begin == bi {
					m.reach(p.Callee, p.Arg, reached{path: []hop{{p.Pos, p.Callee, p.From}}}, seen, func(r reached) { got = append(got, r) })
				}
			}
			for _, r := range got {
				if !r.Write {
					continue
				}
				priors := priorsBefore(r, got)
				if b.Serializable != "" {
					priors = append(priors, rules.Prior{Kind: rules.PriorSerializable, What: "SERIALIZABLE", At: b.Serializable})
				}
				view(r.At).add(priors)
			}
		}
	}
}

// TestSupport reports a package that exists to test others
// (riverdrivertest, testutil, internal/tests).
func TestSupport(path string) bool {
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

// priorsBefore returns what runs before the write w in its transaction.
func priorsBefore(w reached, all []reached) []rules.Prior {
	var out []rules.Prior
	for _, l := range all {
		if (l.impl || w.impl) && l.sum != w.sum {
			continue // one transaction runs one plugin's methods
		}
		if runsBefore(l, w) {
			out = append(out, l.Priors...)
			if l.CAS {
				// A compare-and-swap first in the transaction: a racing
				// writer that follows the same path fails at COMMIT.
				out = append(out, rules.Prior{Kind: rules.PriorLock, Table: l.Table})
			}
		}
	}
	return out
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
		if !s.CASEnabled || s.Foreign {
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

// Finding is a diagnostic of the module stage and the path of the
// package it falls in.
type Finding struct {
	Pkg string
	analysis.Diagnostic
}

// hop is a call, in function from, a transaction is passed through to
// function name.
type hop struct {
	pos  token.Pos
	name string
	from string
}

// hopName says what a hop calls: a function, or the function passed as a
// parameter (txExecute's f).
func hopName(key string) string {
	if i := strings.LastIndex(key, "#"); i > 0 {
		return "the function given to " + shortName(key[:i])
	}
	return shortName(key)
}
