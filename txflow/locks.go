package txflow

import (
	"cmp"
	"fmt"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/rules"
)

// DSQL005 is judged at each lock site, once, whatever runs it: a lock is
// unretried unless every way it runs is shown to lead into a construct
// that re-runs a fresh transaction on SQLSTATE 40001. The judgement walks
// back from each run of a lock — through the calls that hand its
// transaction down, interface methods, closures and the package's own
// query functions — to where the transaction begins, or to the statement
// itself when it runs outside a transaction, and asks whether a retry
// surrounds that point. A retry between the Begin and the lock re-runs
// the lock in the same transaction, which DSQL has already doomed: it does
// not count.
//
// Two worlds: the module stage (closed) sees every caller in the module,
// so a lock whose transaction comes from no caller it knows, a text used
// where no known query call runs it, and every lock of a module that
// retries nothing at all are reported. A package alone (open: go vet,
// golangci-lint) does not know its callers: it reports what it shows
// unretried — a Begin, or a statement on a pool, with no retry around it
// in the package — and is silent where the trail leaves the package.

// Related information of DSQL005 findings.
const (
	runRelated        = "it runs here, outside any transaction"
	unfollowedRelated = "its text is used here; dsqllint cannot tell where it runs"
	untracedRelated   = "it runs here, on a handle not traced to its Begin"
	retryRelated      = "this retry on SQLSTATE 40001 does not cover it"
)

// lockGraph indexes the summaries for DSQL005.
type lockGraph struct {
	fset *token.FileSet
	open bool
	// home is the package judged when a package's driver joins it with
	// the summaries its imports carry (JoinPackage): its locks, and the
	// locks of other packages whose unretried way in ends in it.
	home       string
	sums       []*Summary
	calls      map[string][]callOf  // by callee key
	out        map[string][]callOf  // by caller key
	passes     map[passKey]passOf   // by callee, call and argument
	ifaces     map[string][]string  // implementation → interface methods
	impls      map[string][]string  // interface method → implementations
	binds      map[string][]Closure // function → where it is passed as a closure
	bound      map[string][]Closure // ParamKey → closures bound to it
	returns    map[result]Return    // transactions helpers return
	helpers    map[string]bool      // retry helpers
	pure       map[string]bool      // functions a retry may run again (repeatable)
	retries    []Retry              // every retry construct
	unretried  map[string]bool      // functions some unretried path reaches
	entries    map[string][]entry   // the ways into each function
	loops      map[token.Pos]bool   // loops a predicate of another package makes retries
	memo       map[memoKey]verdict
	incomingOf map[string][]edge // incoming, made once per function
}

type callOf struct {
	*Call // in its summary's Calls
	sum   *Summary
}

type passOf struct {
	*Pass // in its summary's Passes
	sum   *Summary
}

type passKey struct {
	callee string
	pos    token.Pos
	arg    int
}

// handle is what a statement or a call argument runs on, in a function.
type handle struct {
	param int // parameter index, ReceiverArg, or NoHandle
	begin int // Begins index of sum, or -1
	pool  bool
	pgx   bool
	sum   *Summary
}

type memoKey struct {
	fn    string
	param int
	ctx   bool
}

// verdict is the judgement of one way a lock runs: ok when a retry is
// shown around it; else why not.
type verdict struct {
	ok bool
	// begin is the transaction's Begin when it is known (sum's Begins),
	// pool the statement's run outside any transaction, untraced a run on
	// a handle not traced to a Begin or a pool, unfollowed a use of the
	// text no known query call runs, root the function whose callers the
	// module does not show.
	begin      *Begin
	beginSum   *Summary
	pool       bool
	pgx        bool
	untraced   bool
	unfollowed bool
	root       string
	at         token.Pos
	// end is the summary of the package where the unretried way in ends
	// (the Begin's, the pool's, the root's).
	end *Summary
	// path are the calls from the Begin (or the outermost caller) down
	// to the lock; via is the outermost of them made in a package
	// findings are reported in, and viaSum that package's summary: a way
	// that ends elsewhere but is completed there (a closure of it handed
	// to another package's Begin) is reported there.
	path   []hop
	via    token.Pos
	viaSum *Summary
	// trace explains the decision, for -why.
	trace []string
	// fix re-runs a statement run on a pool (the run's Fix).
	fix *analysis.SuggestedFix
}

// newLockGraph builds the graph of the summaries' calls, passes and
// implementations; matched are the implementations matchImpls finds.
func newLockGraph(fset *token.FileSet, sums []*Summary, matched []Impl, open bool) *lockGraph {
	g := &lockGraph{fset: fset, open: open, sums: sums,
		calls: map[string][]callOf{}, out: map[string][]callOf{}, passes: map[passKey]passOf{},
		ifaces: map[string][]string{}, impls: map[string][]string{}, binds: map[string][]Closure{}, bound: map[string][]Closure{},
		returns: map[result]Return{}, helpers: map[string]bool{}, memo: map[memoKey]verdict{}, incomingOf: map[string][]edge{}}
	// A test variant repeats its package's calls: only a package seen
	// twice pays for the set that drops them.
	var seen map[Call]bool
	pkgs := make(map[string]bool, len(sums))
	for _, s := range sums {
		twice := pkgs[s.Pkg]
		pkgs[s.Pkg] = true
		if twice && seen == nil {
			seen = map[Call]bool{}
			for _, cs := range g.calls {
				for _, c := range cs {
					seen[*c.Call] = true
				}
			}
		}
		for i := range s.Calls {
			c := &s.Calls[i]
			if c.Test {
				continue // a test's calls say nothing of how the program retries
			}
			if seen != nil {
				if seen[*c] {
					continue
				}
				seen[*c] = true
			}
			g.calls[c.Callee] = append(g.calls[c.Callee], callOf{c, s})
			g.out[c.From] = append(g.out[c.From], callOf{c, s})
		}
		for i := range s.Passes {
			p := &s.Passes[i]
			g.passes[passKey{p.Callee, p.Pos, p.Arg}] = passOf{p, s}
		}
		for _, im := range s.Impls {
			g.addImpl(im)
		}
		for _, cl := range s.Closures {
			g.binds[cl.Fn] = append(g.binds[cl.Fn], cl)
			k := ParamKey(cl.Callee, cl.Arg)
			g.bound[k] = append(g.bound[k], cl)
		}
		for _, r := range s.Returns {
			g.returns[result{r.Func, r.Result}] = r
		}
		for _, r := range s.Retries {
			g.retries = append(g.retries, r)
			if r.Helper != "" {
				g.helpers[r.Helper] = true
			}
		}
	}
	for _, im := range matched {
		g.addImpl(im)
	}
	g.resolveLoops()
	g.unretried = g.unretriedFuncs()
	return g
}

// resolveLoops decides the loops whose check for a serialization failure
// a predicate of another package makes: a retry on 40001 when the
// predicate, or an implementation of it, checks for one.
func (g *lockGraph) resolveLoops() {
	preds := map[string]bool{}
	for _, s := range g.sums {
		for _, p := range s.Predicates {
			preds[p] = true
		}
	}
	g.loops = map[token.Pos]bool{}
	for _, s := range g.sums {
		for _, l := range s.Loops {
			for _, p := range l.Preds {
				if preds[p] || slices.ContainsFunc(g.impls[p], func(im string) bool { return preds[im] }) {
					g.loops[l.Pos] = true
					g.retries = append(g.retries, Retry{Pos: l.Pos})
					break
				}
			}
		}
	}
}

// in reports a retry around something: seen by its package, or a loop
// the module stage resolved.
func (g *lockGraph) in(retried bool, loop token.Pos) bool {
	return retried || (loop != token.NoPos && g.loops[loop])
}

// addImpl records an implementation once.
func (g *lockGraph) addImpl(im Impl) {
	if !slices.Contains(g.impls[im.Iface], im.Method) {
		g.impls[im.Iface] = append(g.impls[im.Iface], im.Method)
		g.ifaces[im.Method] = append(g.ifaces[im.Method], im.Iface)
	}
}

// incoming are the calls that run fn: of fn itself, of the interface
// methods it implements, and of the function-typed parameters it is
// bound to, or that the parameter it is bound to is handed on to
// (InTx(fn) passing fn to once, which calls it). For a binding, the
// closure runs inside the calls that pass it (retried with them).
type edge struct {
	callOf
	// callee is the key the call names (fn, an interface method, a
	// ParamKey); binds the bindings that made fn run there, the closure's
	// own first, each parameter's handing on after it.
	callee string
	binds  []*Closure
}

func (g *lockGraph) incoming(fn string) []edge {
	if es, ok := g.incomingOf[fn]; ok {
		return es
	}
	var out []edge
	for _, c := range g.calls[fn] {
		out = append(out, edge{callOf: c, callee: fn})
	}
	for _, m := range g.ifaces[fn] {
		for _, c := range g.calls[m] {
			out = append(out, edge{callOf: c, callee: m})
		}
	}
	var handedOn func(fn string, chain []*Closure, seen map[string]bool)
	handedOn = func(fn string, chain []*Closure, seen map[string]bool) {
		for i := range g.binds[fn] {
			b := &g.binds[fn][i]
			k := ParamKey(b.Callee, b.Arg)
			if seen[k] {
				continue
			}
			seen[k] = true
			chain := append(slices.Clip(chain), b)
			for _, c := range g.calls[k] {
				out = append(out, edge{callOf: c, callee: k, binds: chain})
			}
			handedOn(k, chain, seen)
		}
	}
	handedOn(fn, nil, map[string]bool{})
	sort.SliceStable(out, func(i, j int) bool { return g.before(out[i].Pos, out[j].Pos) })
	g.incomingOf[fn] = out
	return out
}

// retriedEdge reports an edge a retry surrounds: the call, or the call
// that handed fn over as a closure (to a retry helper, or inside a retry).
func (g *lockGraph) retriedEdge(e edge) bool {
	return g.in(e.Retried, e.Loop) || slices.ContainsFunc(e.binds, func(b *Closure) bool { return g.in(b.Retried, b.Loop) || g.helpers[b.Callee] })
}

// entry is a way into a function: a call, or a closure handed to the
// function at to, made in from at pos; retried says a retry surrounds it
// (why: "inside a retry", "handed to the retry helper X").
type entry struct {
	from    string
	pos     token.Pos
	retried bool
	why     string
}

// unretriedFuncs returns the functions some path from an entry point
// reaches with no retry on the way: an entry point is a function no call
// of the module runs (main, an exported API, a handler registered as a
// value); a call inside a retry starts no unretried path. A closure runs
// inside the call that passes it, retried when that call is, or when the
// function it is passed to re-runs it in a retry at every call. It also
// fills g.entries.
func (g *lockGraph) unretriedFuncs() map[string]bool {
	g.entries = map[string][]entry{}
	out := map[string][]string{}
	funcs := map[string]bool{}
	add := func(from, to string, pos token.Pos, retried bool, why string) {
		g.entries[to] = append(g.entries[to], entry{from, pos, retried, why})
		if !retried {
			out[from] = append(out[from], to)
		}
		funcs[from], funcs[to] = true, true
	}
	decorators := g.retryDecorators()
	for _, cs := range g.calls {
		for _, c := range cs {
			if len(g.bound[c.Callee]) > 0 || strings.Contains(c.Callee, "#") {
				funcs[c.From] = true
				continue // a function parameter runs what its binding says
			}
			add(c.From, c.Callee, c.Pos, g.in(c.Retried, c.Loop), "inside a retry on 40001")
			d, decorated := decorators[c.Callee]
			for _, im := range g.impls[c.Callee] {
				if decorated && im != d.impl && !d.inside[c.From] {
					// Through the decorator, which re-runs it.
					add(c.From, im, c.Pos, true, "through the retry decorator "+g.name(d.impl))
					continue
				}
				add(c.From, im, c.Pos, g.in(c.Retried, c.Loop), "inside a retry on 40001")
			}
		}
	}
	for _, bs := range g.bound {
		for _, b := range bs {
			switch {
			case g.in(b.Retried, b.Loop):
				add(b.From, b.Fn, b.Pos, true, "inside a retry on 40001")
			case g.helpers[b.Callee] || g.retriesParam(ParamKey(b.Callee, b.Arg)):
				add(b.From, b.Fn, b.Pos, true, "handing it to "+g.name(b.Callee)+", which re-runs it on 40001")
			default:
				add(b.From, b.Fn, b.Pos, false, "")
			}
		}
	}
	for _, s := range g.sums {
		for _, r := range s.Runs {
			funcs[r.Func] = true
			for _, p := range r.Via {
				funcs[p.Func] = true
			}
		}
		for _, b := range s.Begins {
			funcs[b.Func] = true
		}
	}
	for _, es := range g.entries {
		if len(es) > 1 { // most functions have one caller
			slices.SortStableFunc(es, func(a, b entry) int { return g.compare(a.pos, b.pos) })
		}
	}
	un := map[string]bool{}
	var queue []string
	mark := func(f string) {
		if !un[f] {
			un[f] = true
			queue = append(queue, f)
		}
	}
	for f := range funcs {
		if len(g.entries[f]) == 0 {
			mark(f)
		}
	}
	// A cycle no function outside it calls (a wrapper's method calling
	// the interface it implements, whose callers are out of view) is a way
	// in of its own: otherwise its calls of each other would vouch for it.
	for _, f := range g.closedCycles(funcs) {
		mark(f)
	}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		for _, to := range out[f] {
			mark(to)
		}
	}
	return un
}

// closedCycles returns the functions of the call graph's cycles (a
// function calling itself included) that no function outside the cycle
// calls (Tarjan's strongly connected components over g.entries).
func (g *lockGraph) closedCycles(funcs map[string]bool) []string {
	callees := map[string][]string{}
	for to, es := range g.entries {
		for _, e := range es {
			callees[e.from] = append(callees[e.from], to)
		}
	}
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack, out []string
	var strong func(f string)
	strong = func(f string) {
		index[f], low[f] = len(index), len(index)
		stack = append(stack, f)
		onStack[f] = true
		for _, t := range callees[f] {
			if _, seen := index[t]; !seen {
				strong(t)
				low[f] = min(low[f], low[t])
			} else if onStack[t] {
				low[f] = min(low[f], index[t])
			}
		}
		if low[f] != index[f] {
			return
		}
		var scc []string
		for {
			n := len(stack) - 1
			t := stack[n]
			stack, onStack[t] = stack[:n], false
			scc = append(scc, t)
			if t == f {
				break
			}
		}
		in := func(from string) bool { return from == f } // most components are one function: no set
		if len(scc) > 1 {
			set := make(map[string]bool, len(scc))
			for _, t := range scc {
				set[t] = true
			}
			in = func(from string) bool { return set[from] }
		}
		cycle, closed := len(scc) > 1, true
		for _, t := range scc {
			for _, e := range g.entries[t] {
				cycle = cycle || e.from == t
				closed = closed && in(e.from)
			}
		}
		if cycle && closed {
			out = append(out, scc...)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(funcs)) {
		if _, seen := index[f]; !seen {
			strong(f)
		}
	}
	return out
}

// decorator is an implementation of an interface method that calls the
// method again (on the value it wraps) inside a retry on 40001: the
// module's calls of the method go through it. inside are it and the
// closures it hands to the retry.
type decorator struct {
	impl   string
	inside map[string]bool
}

// retryDecorators finds, for each interface method, an implementation
// that wraps another in a retry on 40001 (a store's retrying client).
func (g *lockGraph) retryDecorators() map[string]decorator {
	out := map[string]decorator{}
	check := func(impl string, calls []callOf, closure string) {
		for _, c := range calls {
			if slices.Contains(g.impls[c.Callee], impl) {
				out[c.Callee] = decorator{impl, map[string]bool{impl: true, closure: true}}
			}
		}
	}
	for _, bs := range g.bound {
		for _, b := range bs {
			if g.in(b.Retried, b.Loop) || g.helpers[b.Callee] || g.retriesParam(ParamKey(b.Callee, b.Arg)) {
				check(b.From, g.out[b.Fn], b.Fn)
			}
		}
	}
	for _, cs := range g.calls {
		for _, c := range cs {
			if g.in(c.Retried, c.Loop) && strings.HasPrefix(c.Callee, "func@") { // a closure handed to a retry function
				check(c.From, g.out[c.Callee], c.Callee)
			}
			if g.in(c.Retried, c.Loop) && slices.Contains(g.impls[c.Callee], c.From) { // a loop in the decorator itself
				out[c.Callee] = decorator{c.From, map[string]bool{c.From: true}}
			}
		}
	}
	return out
}

// retriesParam reports whether every call of the function parameter k
// (a ParamKey) runs inside a retry: its function is a retry helper for
// what it is given.
func (g *lockGraph) retriesParam(k string) bool {
	cs := g.calls[k]
	for _, c := range cs {
		if !g.in(c.Retried, c.Loop) {
			return false
		}
	}
	return len(cs) > 0
}

// fnRetried reports whether every way fn runs is inside a retry; pins
// narrow it to one chain of calls.
func (g *lockGraph) fnRetried(fn string, pins []Pin) bool {
	if len(pins) > 0 {
		return g.in(pins[0].Retried, pins[0].Loop) || g.fnRetried(pins[0].Func, pins[1:])
	}
	if g.open && len(g.incoming(fn)) == 0 {
		return false // a package function no one in the package calls: its callers may retry, or not
	}
	return !g.unretried[fn]
}

// retriedBy explains fnRetried: one chain of calls from fn up to one
// inside a retry, and how many other ways into each function there are.
func (g *lockGraph) retriedBy(fn string, pins []Pin) []string {
	var out []string
	indent := "  "
	for range 8 {
		var e entry
		others := 0
		if len(pins) > 0 {
			e = entry{pins[0].Func, pins[0].Pos, g.in(pins[0].Retried, pins[0].Loop), "inside a retry on 40001"}
			pins = pins[1:]
		} else {
			es := g.entries[fn]
			if len(es) == 0 {
				return out
			}
			e, others = es[0], len(es)-1
			for _, x := range es {
				if x.retried {
					e = x // the retry itself, where there is one
					break
				}
			}
		}
		line := fmt.Sprintf("%s%s: %s calls it", indent, g.posString(e.pos), g.name(e.from))
		if e.retried {
			line += " " + e.why
		}
		if others > 0 {
			line += fmt.Sprintf(" (and %d more ways in, each retried too)", others)
		}
		out = append(out, line)
		if e.retried {
			return out
		}
		fn, indent = e.from, indent+"  "
	}
	return out
}

// judgeRun judges one run of a lock.
func (g *lockGraph) judgeRun(s *Summary, r LockRun) verdict {
	h := handle{param: r.Param, begin: r.Begin, pool: r.Pool, pgx: r.PGX, sum: s}
	if r.Unfollowed {
		v := g.covered(r.Func, handle{param: NoHandle, begin: -1, sum: s}, g.in(r.Retried, r.Loop), r.Via, 0, map[memoKey]bool{})
		if !v.ok {
			v.unfollowed, v.untraced, v.pool, v.at, v.end = true, false, false, r.Pos, s
			v.trace = append([]string{fmt.Sprintf("%s: the text is used in %s, no known query call: where it runs is not followed", g.posString(r.Pos), g.name(r.Func))}, v.trace...)
		}
		return v
	}
	v := g.covered(r.Func, h, g.in(r.Retried, r.Loop), r.Via, 0, map[memoKey]bool{})
	if (v.pool || v.untraced) && v.at == token.NoPos {
		v.at = r.Pos
	}
	if v.pool && r.Pool {
		v.fix = r.Fix
	}
	return v
}

// covered judges a statement run in fn on handle h; ctx says a retry
// already surrounds it (between the point judged and the statement).
func (g *lockGraph) covered(fn string, h handle, ctx bool, pins []Pin, depth int, visiting map[memoKey]bool) verdict {
	name := g.name(fn)
	if h.begin >= 0 {
		b := &h.sum.Begins[h.begin]
		if b.Via == "" || g.returnsTx(b.Via, b.Result) {
			if b.Func != fn {
				// Run in a closure the function that begins makes: judged
				// where the Begin is.
				fn, name, pins = b.Func, g.name(b.Func), nil
			}
			switch {
			case g.in(b.Retried, b.Loop):
				return verdict{ok: true, trace: []string{fmt.Sprintf("%s: the transaction begins in %s, inside a retry on 40001", g.posString(b.Pos), name)}}
			case g.fnRetried(fn, pins):
				return verdict{ok: true, trace: append([]string{fmt.Sprintf("%s: the transaction begins in %s, which runs only inside retries on 40001:", g.posString(b.Pos), name)}, g.retriedBy(fn, pins)...)}
			}
			return verdict{begin: b, beginSum: h.sum, end: h.sum, trace: []string{fmt.Sprintf("%s: the transaction begins in %s, outside any retry on 40001", g.posString(b.Pos), name)}}
		}
		h = handle{param: NoHandle, begin: -1, sum: h.sum} // the helper's result is no transaction it begins
	}
	if h.pool || h.param == NoHandle || depth > maxPassDepth {
		what := "on a handle dsqllint does not follow (a struct field, a value of unknown make)"
		if h.pool {
			what = "on a pool, outside any transaction"
		}
		switch {
		case ctx:
			return verdict{ok: true, trace: []string{fmt.Sprintf("it runs in %s %s, inside a retry on 40001", name, what)}}
		case g.fnRetried(fn, pins):
			return verdict{ok: true, trace: append([]string{fmt.Sprintf("it runs in %s %s; %s runs only inside retries on 40001:", name, what, name)}, g.retriedBy(fn, pins)...)}
		case g.open && !h.pool:
			return verdict{ok: true, trace: []string{fmt.Sprintf("it runs in %s %s: not judged one package at a time", name, what)}}
		}
		return verdict{pool: h.pool, untraced: !h.pool, pgx: h.pgx, end: h.sum, trace: []string{fmt.Sprintf("it runs in %s %s, and no retry on 40001 surrounds it", name, what)}}
	}
	// A parameter or the receiver: judged at every call that hands it over.
	key := memoKey{fn, h.param, ctx}
	if len(pins) == 0 {
		if v, ok := g.memo[key]; ok {
			return v
		}
		if visiting[key] {
			return verdict{ok: true} // a recursive call adds no way in
		}
		visiting[key] = true
		defer delete(visiting, key)
	}
	var edges []edge
	for _, e := range g.incoming(fn) {
		if len(pins) > 0 && e.Pos != pins[0].Pos {
			continue
		}
		edges = append(edges, e)
	}
	what := "its parameter"
	if h.param == ReceiverArg {
		what = "its receiver"
	}
	if len(edges) == 0 {
		switch {
		case ctx:
			return verdict{ok: true, trace: []string{fmt.Sprintf("it runs in %s on %s, inside a retry on 40001", name, what)}}
		case g.open:
			return verdict{ok: true, trace: []string{fmt.Sprintf("it runs in %s on %s, which no call of the package hands over: not judged one package at a time", name, what)}}
		}
		return verdict{root: fn, end: h.sum, trace: []string{fmt.Sprintf("it runs in %s on %s, and no call in the module hands it a transaction inside a retry on 40001", name, what)}}
	}
	var out verdict
	out.ok = true
	var elsewhere *verdict // an unretried way in that ends outside home
	for _, e := range edges {
		arg := h.param
		var next handle
		if p, ok := g.passes[passKey{e.callee, e.Pos, arg}]; ok {
			next = handle{param: p.Param, begin: p.Begin, pool: p.Pool, pgx: p.PGX, sum: p.sum}
		} else {
			next = handle{param: NoHandle, begin: -1, sum: e.sum}
		}
		var rest []Pin
		switch {
		case len(pins) > 0:
			rest = pins[1:]
		case len(e.binds) > 0:
			// The closure runs inside the calls that passed it: they are
			// the ones that run the function calling it, the last first.
			for _, b := range slices.Backward(e.binds) {
				rest = append(rest, Pin{Func: b.From, Pos: b.Pos, Retried: b.Retried, Loop: b.Loop})
			}
		}
		v := g.covered(e.From, next, ctx || g.retriedEdge(e), rest, depth+1, visiting)
		v.trace = append(v.trace, fmt.Sprintf("%s: %s calls %s, handing over %s", g.posString(e.Pos), g.name(e.From), name, what))
		if !v.ok {
			v.path = append(v.path, hop{pos: e.Pos, name: e.callee, from: e.From})
			if v.via == token.NoPos && e.sum != nil && g.reportsIn(e.sum) {
				v.via, v.viaSum = e.Pos, e.sum
			}
			// Of the unretried ways in, the worst (a Begin before a root
			// no call shows), as judgeSites ranks the runs: which is met
			// first must not decide what the finding names.
			if g.standsIn(v) == nil {
				if elsewhere == nil || g.worse(v, *elsewhere, "") {
					elsewhere = &v
				}
				continue // a way in that stands where findings are reported is the one to report
			}
			if out.ok || g.worse(v, out, "") {
				out = v
			}
			continue
		}
		if out.ok {
			out.trace = append(out.trace, v.trace...)
		}
	}
	if out.ok && elsewhere != nil {
		out = *elsewhere
	}
	if len(pins) == 0 {
		g.memo[key] = out
	}
	return out
}

// returnsTx reports whether result k of fn, or of an implementation of
// the interface method fn, is a transaction it begins.
func (g *lockGraph) returnsTx(fn string, k int) bool {
	for _, f := range append([]string{fn}, g.impls[fn]...) {
		if _, ok := g.returns[result{f, k}]; ok {
			return true
		}
	}
	return false
}

// name is how messages name a function: its short name, or the closure
// by where it is written.
func (g *lockGraph) name(key string) string {
	if p, rest, ok := litKey(key); ok && rest == "" {
		return "the closure at " + g.posString(p)
	}
	return shortName(key)
}

func (g *lockGraph) posString(pos token.Pos) string {
	p := g.fset.Position(pos)
	return fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
}

// Decision is DSQL005's judgement of one lock site: reported or not, and
// the chain the analysis followed for each way the lock runs (-why).
type Decision struct {
	Pos      token.Pos
	What     string
	Reported bool
	// Why holds a line per step, a run's header first.
	Why []string
}

// siteOf is a lock site and its package.
type siteOf struct {
	LockSite
	sum  *Summary
	runs []runOf
}

type runOf struct {
	LockRun
	sum *Summary
}

// judgeSites judges every lock site of the summaries.
func (g *lockGraph) judgeSites() ([]Finding, []Decision) {
	sites := map[token.Pos]*siteOf{}
	consts := map[string]*siteOf{}
	var order []*siteOf
	for _, s := range g.sums {
		for _, l := range s.Locks {
			if _, dup := sites[l.Pos]; dup {
				continue
			}
			so := &siteOf{LockSite: l, sum: s}
			sites[l.Pos] = so
			order = append(order, so)
			if l.Const != "" {
				consts[l.Const] = so
			}
		}
	}
	for _, s := range g.sums {
		for _, r := range s.Runs {
			targets := map[*siteOf]bool{}
			for _, p := range r.Sites {
				if so := sites[p]; so != nil {
					targets[so] = true
				}
			}
			for _, k := range r.Consts {
				if so := consts[k]; so != nil {
					targets[so] = true
				}
			}
			for so := range targets {
				if !slices.ContainsFunc(so.runs, func(o runOf) bool { return o.Pos == r.Pos && o.Func == r.Func && len(o.Via) == len(r.Via) }) {
					so.runs = append(so.runs, runOf{r, s}) // (a test variant repeats its package's runs)
				}
			}
		}
	}
	sort.Slice(order, func(i, j int) bool { return g.before(order[i].Pos, order[j].Pos) })
	noRetry := !g.open && len(g.retries) == 0
	var findings []Finding
	var decisions []Decision
	for _, so := range order {
		if !g.reportsIn(so.sum) {
			// Another package's lock: judged here only by its ways in
			// that end here, and reported where they do (lockElsewhere).
			if f, ok := g.lockElsewhere(so); ok {
				findings = append(findings, f)
			}
			continue
		}
		if so.Test || !so.sum.Enabled {
			continue // a test's own locks race with nothing in production
		}
		d := Decision{Pos: so.Pos, What: so.What}
		if so.Quiet {
			d.Why = []string{"a dsqllint:ignore directive silences DSQL005 here"}
			decisions = append(decisions, d)
			continue
		}
		runs := slices.DeleteFunc(slices.Clone(so.runs), func(r runOf) bool { return r.Unfollowed })
		if len(runs) == 0 {
			runs = so.runs // only uses no query call runs: judge where they are
		}
		var bad []verdict
		for _, r := range runs {
			v := g.judgeRun(r.sum, r.LockRun)
			d.Why = append(d.Why, fmt.Sprintf("run at %s in %s:", g.posString(r.Pos), g.name(r.Func)))
			for _, line := range v.trace {
				d.Why = append(d.Why, "  "+line)
			}
			if !v.ok {
				bad = append(bad, v)
			}
		}
		if len(runs) == 0 {
			if g.open {
				d.Why = append(d.Why, "no run of it in this package: not judged one package at a time")
				decisions = append(decisions, d)
				continue
			}
			d.Why = append(d.Why, "no call in the module runs it, and nothing uses it where a retry could be seen")
			bad = append(bad, verdict{unfollowed: true})
		}
		if noRetry {
			d.Why = append(d.Why, "nothing in the module retries a transaction on SQLSTATE 40001")
		}
		if len(bad) == 0 {
			decisions = append(decisions, d)
			continue
		}
		file := g.fset.Position(so.Pos).Filename
		sort.SliceStable(bad, func(i, j int) bool { return g.worse(bad[i], bad[j], file) })
		d.Reported = true
		decisions = append(decisions, d)
		findings = append(findings, Finding{Pkg: so.sum.Pkg, Diagnostic: g.lockDiagnostic(so, bad[0], noRetry, "")})
	}
	return findings, decisions
}

// reportsIn reports whether findings are reported in the package of s:
// the home package of JoinPackage, every package but the foreign ones
// in the module stage.
func (g *lockGraph) reportsIn(s *Summary) bool {
	if g.home != "" {
		return s.Pkg == g.home
	}
	return !s.Foreign
}

// endsHome reports an unretried way in that ends in a package findings
// are reported in (reportsIn).
func (g *lockGraph) endsHome(v verdict) bool {
	return v.end != nil && g.reportsIn(v.end)
}

// standsIn returns the summary of the package a finding on the unretried
// way v stands in: where it ends, else the outermost package it passes
// through that findings are reported in; nil when there is none.
func (g *lockGraph) standsIn(v verdict) *Summary {
	if g.endsHome(v) {
		return v.end
	}
	return v.viaSum
}

// lockElsewhere judges a lock of another package (an imported one under
// JoinPackage, a foreign helper in the module stage) by the ways in that
// end in, or pass through, a package findings are reported in: one
// unretried is reported at its Begin (or at the call there that leads to
// the lock), naming the lock.
func (g *lockGraph) lockElsewhere(so *siteOf) (Finding, bool) {
	if so.Test || so.Quiet {
		return Finding{}, false
	}
	var bad []verdict
	for _, r := range so.runs {
		if r.Unfollowed {
			continue // judged by the package that uses the text
		}
		if v := g.judgeRun(r.sum, r.LockRun); !v.ok && g.standsIn(v) != nil && g.standsIn(v).Enabled {
			bad = append(bad, v)
		}
	}
	if len(bad) == 0 {
		return Finding{}, false
	}
	sort.SliceStable(bad, func(i, j int) bool { return g.worse(bad[i], bad[j], "") })
	v := bad[0]
	at := v.at
	switch {
	case !g.endsHome(v):
		at = v.via
	case v.begin != nil:
		at = v.begin.Pos
	case len(v.path) > 0:
		at = v.path[0].pos
	}
	if at == token.NoPos {
		return Finding{}, false
	}
	d := g.lockDiagnostic(so, v, false, g.posString(so.Pos))
	d.Pos, d.End = at, at
	d.Related = append([]analysis.RelatedInformation{{Pos: so.Pos, End: so.End, Message: "the lock"}}, d.Related...)
	return Finding{Pkg: g.standsIn(v).Pkg, Diagnostic: d}, true
}

// worse orders the unretried ways a lock runs by how well a finding
// naming them explains it: a Begin of the program first (then of a test
// helper package), the shorter path first, one in the lock's file first.
func (g *lockGraph) worse(a, b verdict, file string) bool {
	rank := func(v verdict) int {
		switch {
		case v.begin != nil && !TestSupport(v.beginSum.Pkg):
			return 0
		case v.pool:
			return 1
		case v.root != "" && (v.end == nil || !TestSupport(v.end.Pkg)):
			return 2
		case v.untraced:
			return 3
		case v.unfollowed:
			return 4
		}
		return 5
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra < rb
	}
	if len(a.path) != len(b.path) {
		return len(a.path) < len(b.path)
	}
	here := func(v verdict) bool {
		return v.begin != nil && g.fset.Position(v.begin.Pos).Filename == file
	}
	if here(a) != here(b) {
		return here(a)
	}
	// Otherwise the first in source order, whatever order the packages
	// were joined in: the same finding names the same way every run.
	at := func(v verdict) token.Position {
		switch {
		case v.begin != nil:
			return g.fset.Position(v.begin.Pos)
		case len(v.path) > 0:
			return g.fset.Position(v.path[len(v.path)-1].pos)
		}
		return token.Position{Filename: v.root}
	}
	return positionLess(at(a), at(b))
}

// before orders positions by file name, then offset: token.Pos orders
// files as they were parsed, which parallel loading changes from run to
// run, and the walk of the graph, memoised, depends on the order.
func (g *lockGraph) before(a, b token.Pos) bool { return g.compare(a, b) < 0 }

// compare orders positions by file name, then offset, as before does.
// Within one file the positions themselves are in offset order: no
// line or column is computed.
func (g *lockGraph) compare(a, b token.Pos) int {
	fa, fb := g.fset.File(a), g.fset.File(b)
	if fa == nil || fb == nil {
		return cmp.Compare(a, b)
	}
	if fa != fb {
		if c := strings.Compare(fa.Name(), fb.Name()); c != 0 {
			return c
		}
	}
	return cmp.Compare(fa.Offset(a), fb.Offset(b))
}

func positionLess(a, b token.Position) bool {
	if a.Filename != b.Filename {
		return a.Filename < b.Filename
	}
	return a.Offset < b.Offset
}

// lockDiagnostic is DSQL005 at a lock site, naming the way it runs
// unretried; at names the lock when the finding stands elsewhere.
func (g *lockGraph) lockDiagnostic(so *siteOf, v verdict, noRetry bool, at string) analysis.Diagnostic {
	r := rules.LockWithoutRetry
	lc := rules.LockContext{What: so.What, At: at, Exec: so.Exec, PGX: v.pgx, NoRetry: noRetry}
	var related []analysis.RelatedInformation
	var fixes []analysis.SuggestedFix
	switch {
	case v.begin != nil:
		lc.Begin, lc.PGX = g.posString(v.begin.Pos), v.begin.PGX
		related = append(related, analysis.RelatedInformation{Pos: v.begin.Pos, Message: BeginRelated})
		if fix, why := g.beginFix(v.begin); fix != nil {
			lc.Fix = "-fix runs the transaction of " + shortName(v.begin.Func) + " in the retry helper"
			fixes = append(fixes, *fix)
		} else {
			lc.NoFix = why
		}
	case v.pool:
		lc.Pool = true
		if v.fix != nil {
			lc.Fix = "-fix runs it in the retry helper"
			fixes = append(fixes, *v.fix)
		}
		if v.at != token.NoPos && v.at != so.Pos {
			related = append(related, analysis.RelatedInformation{Pos: v.at, Message: runRelated})
		}
	case v.root != "":
		lc.Root = g.name(v.root)
	case v.untraced:
		lc.Untraced = true
		if v.at != token.NoPos && v.at != so.Pos {
			related = append(related, analysis.RelatedInformation{Pos: v.at, Message: untracedRelated})
		}
	default:
		lc.Unfollowed = true
		if v.at != token.NoPos && v.at != so.Pos {
			related = append(related, analysis.RelatedInformation{Pos: v.at, Message: unfollowedRelated})
		}
	}
	for _, h := range v.path {
		related = append(related, analysis.RelatedInformation{Pos: h.pos, Message: "and is passed to " + hopName(h.name)})
	}
	if !noRetry {
		for _, rt := range g.nearestRetries(so.Pos, 2) {
			related = append(related, analysis.RelatedInformation{Pos: rt.Pos, Message: retryRelated})
		}
	}
	return analysis.Diagnostic{Pos: so.Pos, End: so.End, Category: r.ID, URL: r.DocURL(),
		Message: r.Prefix() + rules.LockRetryMessage(lc), Related: related, SuggestedFixes: fixes}
}

// beginFix is the fix a Begin's summary offers, if every function of
// another package its statements call repeats harmlessly; else why not.
func (g *lockGraph) beginFix(b *Begin) (*analysis.SuggestedFix, string) {
	if b.Fix == nil {
		return nil, b.NoFix
	}
	for _, n := range b.Needs {
		if !g.repeatable()[n.Func] {
			return nil, fmt.Sprintf("line %d calls %s between Begin and Commit: a retry would repeat it, and dsqllint cannot show it has no effect outside the transaction", n.Line, n.Name)
		}
	}
	return b.Fix, ""
}

// repeatable is the set of the module's functions a retry may run again:
// those the summaries record whose needs are all in the set.
func (g *lockGraph) repeatable() map[string]bool {
	if g.pure != nil {
		return g.pure
	}
	needs := map[string][]string{}
	for _, s := range g.sums {
		for _, r := range s.Repeatable {
			needs[r.Func] = r.Needs
		}
	}
	g.pure = map[string]bool{}
	for fn := range needs {
		g.pure[fn] = true
	}
	for changed := true; changed; {
		changed = false
		for fn, ns := range needs {
			if !g.pure[fn] {
				continue
			}
			for _, n := range ns {
				if !g.pure[n] {
					g.pure[fn], changed = false, true
					break
				}
			}
		}
	}
	return g.pure
}

// nearestRetries returns up to n retry constructs, those whose directory
// shares the most of the lock's first (the store's own retry before
// another backend's), each place once: a package and its test variant
// hold the same retry at two positions of one file.
func (g *lockGraph) nearestRetries(pos token.Pos, n int) []Retry {
	dir := filepath.Dir(g.fset.Position(pos).Filename)
	type near struct {
		r      Retry
		at     token.Position
		shared int
	}
	var rs []near
	seen := map[token.Position]bool{}
	for _, r := range g.retries {
		at := g.fset.Position(r.Pos)
		at.Line, at.Column = 0, 0 // the offset says the place
		if seen[at] {
			continue
		}
		seen[at] = true
		rs = append(rs, near{r, at, sharedDirs(dir, filepath.Dir(at.Filename))})
	}
	slices.SortStableFunc(rs, func(a, b near) int {
		if c := cmp.Compare(b.shared, a.shared); c != 0 {
			return c
		}
		return g.compare(a.r.Pos, b.r.Pos)
	})
	out := make([]Retry, 0, min(n, len(rs)))
	for _, r := range rs[:min(n, len(rs))] {
		out = append(out, r.r)
	}
	return out
}

// sharedDirs counts the leading directories two directories share.
func sharedDirs(a, b string) int {
	as, bs := strings.Split(filepath.ToSlash(a), "/"), strings.Split(filepath.ToSlash(b), "/")
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	return n
}
