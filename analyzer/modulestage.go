package analyzer

import (
	"fmt"
	"go/token"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/rules"
)

// BeginRelated is the related information DSQL005 gives at the Begin.
const BeginRelated = "the transaction begins here, outside any 40001 retry"

// maxPassDepth bounds how many calls a transaction is followed through.
const maxPassDepth = 8

// ModuleFindings joins the summaries of a module's packages and reports
// DSQL005 where no single package can: a FOR UPDATE run on a parameter, in
// one package, when a function of another package begins the transaction
// outside any 40001 retry and hands it down. A function counts as retried
// when any call of it in the module runs inside a retry. Each lock is
// reported once, at the query, with the Begin and the calls in between as
// related information. fset must hold every summarised package's files
// (one go/packages load does).
func ModuleFindings(fset *token.FileSet, sums []*Summary) []ModuleFinding {
	locks := map[string][]ParamLock{} // by function
	passes := map[string][]Pass{}     // by caller
	retried := map[string]bool{}
	pkgOf := map[string]*Summary{}
	type result struct {
		fn string
		k  int
	}
	returns := map[result]Return{} // transactions helpers begin and return
	for _, s := range sums {
		if s == nil {
			continue
		}
		for _, r := range s.Returns {
			returns[result{r.Func, r.Result}] = r
		}
		for _, l := range s.Locks {
			locks[l.Func] = append(locks[l.Func], l)
			pkgOf[l.Func] = s
		}
		for _, p := range s.Passes {
			passes[p.From] = append(passes[p.From], p)
		}
		for _, f := range s.Retried {
			retried[f] = true
		}
	}
	helpers := retryHelpers(sums)
	for _, s := range sums {
		if s == nil {
			continue
		}
		for _, h := range s.HelperCalls {
			if helpers[h.Helper] {
				retried[h.Callee] = true // run in a closure a retry helper re-runs
			}
		}
	}
	// reach calls visit for every lock parameter arg of fn leads to, with
	// the calls that lead there.
	var reach func(fn string, arg int, path []hop, seen map[string]bool, visit func(ParamLock, []hop))
	reach = func(fn string, arg int, path []hop, seen map[string]bool, visit func(ParamLock, []hop)) {
		key := fmt.Sprintf("%s#%d", fn, arg)
		if seen[key] || len(path) > maxPassDepth {
			return
		}
		seen[key] = true
		for _, l := range locks[fn] {
			if l.Param == arg {
				visit(l, path)
			}
		}
		for _, p := range passes[fn] {
			if p.Param == arg {
				reach(p.Callee, p.Arg, append(path[:len(path):len(path)], hop{p.Pos, p.Callee}), seen, visit)
			}
		}
	}
	reported := map[token.Pos]bool{}
	var out []ModuleFinding
	for _, s := range sums {
		if s == nil {
			continue
		}
		for _, p := range s.Passes {
			if p.Begin < 0 {
				continue
			}
			b := s.Begins[p.Begin]
			if b.Via != "" {
				r, ok := returns[result{b.Via, b.Result}]
				if !ok {
					continue // the helper's result is no transaction it begins
				}
				b.PGX = r.PGX
			}
			if retried[b.Func] {
				continue
			}
			reach(p.Callee, p.Arg, []hop{{p.Pos, p.Callee}}, map[string]bool{}, func(l ParamLock, path []hop) {
				ls := pkgOf[l.Func]
				if ls == s || !ls.Enabled || reported[l.Pos] {
					return // the package's own analysis judges its transactions
				}
				reported[l.Pos] = true
				out = append(out, ModuleFinding{Pkg: ls.Pkg, Diagnostic: lockDiagnostic(fset, b, l, path)})
			})
		}
	}
	out = append(out, droppedCASResults(sums)...)
	sort.Slice(out, func(i, j int) bool { return out[i].Pos < out[j].Pos })
	return out
}

// droppedCASResults reports DSQL004 where a caller drops the result a
// function of another package hands back from a compare-and-swap write.
func droppedCASResults(sums []*Summary) []ModuleFinding {
	cas := map[string]token.Pos{}
	for _, s := range sums {
		if s != nil {
			for _, r := range s.CASResults {
				cas[r.Func] = r.Pos
			}
		}
	}
	var out []ModuleFinding
	seen := map[token.Pos]bool{}
	for _, s := range sums {
		if s == nil || !s.CASEnabled {
			continue
		}
		for _, d := range s.Drops {
			write, ok := cas[d.Callee]
			if !ok || seen[d.Pos] {
				continue
			}
			seen[d.Pos] = true
			r := rules.UncheckedCAS
			out = append(out, ModuleFinding{Pkg: s.Pkg, Diagnostic: analysis.Diagnostic{
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

// RetriedBegins returns the Begins that a package's own analysis judged
// unretried but that sit in a closure another package's retry helper
// re-runs: the dsqllint command drops the DSQL005 findings naming them.
func RetriedBegins(sums []*Summary) map[token.Pos]bool {
	helpers := retryHelpers(sums)
	out := map[token.Pos]bool{}
	for _, s := range sums {
		if s == nil {
			continue
		}
		for _, b := range s.HelperBegins {
			if helpers[b.Helper] {
				out[b.Pos] = true
			}
		}
	}
	return out
}

// ModuleFinding is a diagnostic of the module stage and the path of the
// package it falls in.
type ModuleFinding struct {
	Pkg string
	analysis.Diagnostic
}

// hop is a call a transaction is passed through.
type hop struct {
	pos  token.Pos
	name string
}

func lockDiagnostic(fset *token.FileSet, b Begin, l ParamLock, path []hop) analysis.Diagnostic {
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
		d.Related = append(d.Related, analysis.RelatedInformation{Pos: h.pos, Message: "and is passed to " + h.name})
	}
	return d
}
