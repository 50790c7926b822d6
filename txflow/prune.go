package txflow

import (
	"maps"
	"slices"
	"strings"
)

// What a Fact sends of a summary. A call, a transaction handed over, a
// closure or an implementation tells an importer something only on a
// chain from what the join judges — a statement, a lock, a transaction
// begun or returned, a retry, a predicate, a compare-and-swap result — up
// to where it is begun or retried; or where what the call reaches is left
// to the importer: a function parameter, an interface method
// (Call.Dynamic). The rest (a logger's helpers, generated getters, the
// plumbing of most packages) is cut before it is sent: on Temporal's
// persistence tree it was most of every fact.

// live returns the functions of sums through which such a chain can pass,
// and reaches, which says whether a call of a function leads to one. below
// reports the functions of the packages whose summaries were sent before
// (their Carried.live): what they call is in them, so their verdict is
// final. A function of a package whose summary is not in view leads
// nowhere: the join knows nothing of it either.
func live(sums []*Summary, below func(string) bool) (alive map[string]bool, reaches func(string) bool) {
	alive = map[string]bool{}
	dynamic := map[string]bool{}
	for _, s := range sums {
		for _, k := range seeds(s) {
			alive[k] = true
		}
		for _, c := range s.Calls {
			if c.Dynamic {
				dynamic[c.Callee] = true
			}
		}
	}
	reaches = func(k string) bool {
		return alive[k] || dynamic[k] || strings.Contains(k, "#") || below(k)
	}
	for changed := true; changed; {
		changed = false
		mark := func(k string) {
			if !alive[k] {
				alive[k], changed = true, true
			}
		}
		for _, s := range sums {
			edges(s, func(from, to string) {
				if reaches(to) {
					mark(from)
				}
			})
		}
	}
	return alive, reaches
}

// edges calls at for each way s says a function (from) comes to run
// another (to): a call, a transaction handed over, a closure handed on
// (from made it), an interface method implemented (from is the
// interface's method).
func edges(s *Summary, at func(from, to string)) {
	for _, c := range s.Calls {
		at(c.From, c.Callee)
	}
	for _, p := range s.Passes {
		at(p.From, p.Callee)
	}
	for _, cl := range s.Closures {
		at(cl.From, cl.Fn)
	}
	for _, im := range s.Impls {
		at(im.Iface, im.Method)
	}
}

// seeds are the functions of s that do what the join judges, or that
// name one that does.
func seeds(s *Summary) []string {
	var out []string
	for _, x := range s.Stmts {
		out = append(out, x.Func)
	}
	for _, x := range s.Runs {
		out = append(out, x.Func)
		for _, p := range x.Via {
			out = append(out, p.Func)
		}
	}
	for _, x := range s.Begins {
		out = append(out, x.Func)
		if x.Via != "" {
			out = append(out, x.Via)
		}
	}
	for _, x := range s.Returns {
		out = append(out, x.Func)
	}
	for _, x := range s.Retries {
		if x.Helper != "" {
			out = append(out, x.Helper)
		}
	}
	out = append(out, s.Predicates...)
	for _, x := range s.Loops {
		out = append(out, x.Preds...)
	}
	for _, x := range s.CASResults {
		out = append(out, x.Func)
	}
	for _, x := range s.Drops {
		out = append(out, x.Callee)
	}
	for _, x := range s.Repeatable {
		out = append(out, x.Func)
	}
	return out
}

// prune returns a copy of s without the calls, transactions handed over,
// closures, implementations and types that lead nowhere (live's reaches).
func prune(s *Summary, reaches func(string) bool) *Summary {
	c := *s
	c.Calls = slices.DeleteFunc(slices.Clone(s.Calls), func(x Call) bool { return !reaches(x.Callee) })
	c.Passes = slices.DeleteFunc(slices.Clone(s.Passes), func(x Pass) bool { return !reaches(x.Callee) })
	c.Closures = slices.DeleteFunc(slices.Clone(s.Closures), func(x Closure) bool { return !reaches(x.Fn) })
	c.Impls = slices.DeleteFunc(slices.Clone(s.Impls), func(x Impl) bool { return !reaches(x.Method) })
	// A type matters to the join as the implementation of an interface
	// some call reaches: only through a method that leads somewhere. An
	// interface stays whole: an importer may call it.
	c.Types = slices.DeleteFunc(listed(s.Types), func(m MethodSet) bool {
		return !slices.ContainsFunc(m.List, func(x Method) bool { return reaches(x.Key) })
	})
	return &c
}

// ownAlive returns, sorted, the functions alive that s speaks of as its
// own: the callers of its calls and its seeds.
func ownAlive(s *Summary, alive map[string]bool) []string {
	own := map[string]bool{}
	add := func(k string) {
		if alive[k] {
			own[k] = true
		}
	}
	for _, k := range seeds(s) {
		add(k)
	}
	edges(s, func(from, _ string) { add(from) })
	return slices.Sorted(maps.Keys(own))
}
