package txcheck

import (
	"go/ast"
	"go/token"
	"slices"

	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
	"github.com/dsqllint/dsqllint/sqltext"
)

// scopedPos is a position in a function.
type scopedPos struct {
	pos   token.Pos
	scope ast.Node
}

// scopedPrior is what a statement at pos establishes for the statements
// after it in its function (DSQL003).
type scopedPrior struct {
	pos token.Pos
	rules.Prior
}

// callerDepth bounds how many calls up a write's callers are followed.
const callerDepth = 3

// txPriors records, per function, what its statements establish for the
// statements after them: locks, advisory locks, LOCK TABLE, inserts, a
// SERIALIZABLE isolation and, in a SERIALIZABLE function, its reads. It
// is the package's view of a transaction: a function and the package
// functions it calls.
func (c *checker) txPriors(parsed []*gosql.Parsed) map[ast.Node][]scopedPrior {
	out := map[ast.Node][]scopedPrior{}
	for _, sp := range c.serializable {
		out[sp.scope] = append(out[sp.scope], scopedPrior{sp.pos, rules.Prior{Kind: rules.PriorSerializable, What: "SERIALIZABLE", At: c.Where(sp.pos)}})
	}
	for _, p := range parsed {
		t := p.Text
		if t.Scope == nil {
			continue
		}
		for _, st := range p.Script.Stmts {
			pos := t.Pos(st.Span.Start, false)
			for _, pr := range c.priorsOf(st, pos) {
				out[t.Scope] = append(out[t.Scope], scopedPrior{pos, pr})
			}
		}
	}
	// The reads that guard a SERIALIZABLE transaction's writes: parsed
	// again only there, since the token model keeps no table of a read.
	for _, p := range parsed {
		t := p.Text
		if t.Scope == nil || !slices.ContainsFunc(out[t.Scope], func(sp scopedPrior) bool { return sp.Kind == rules.PriorSerializable }) {
			continue
		}
		for _, st := range p.Script.Stmts {
			if st.Kind != sqlparse.KindSelect || len(st.Locks) > 0 {
				continue
			}
			if table, keys, consts, ok := sqlparse.ReadOf(p.Script.Text[st.Span.Start:st.Span.End]); ok {
				pos := t.Pos(st.Span.Start, false)
				out[t.Scope] = append(out[t.Scope], scopedPrior{pos, rules.Prior{Kind: rules.PriorRead, Table: table, Keys: keys, Columns: consts, At: c.Where(pos)}})
			}
		}
	}
	return out
}

// txView is the package's view of its transactions: for the statements
// of a text, what runs before them in the function's own statements before
// them, those of the package functions it called first, and its callers'
// before they called it (every caller, for Every; any, for Some). Made once
// per package; a text's view is one closure over it.
type txView struct {
	c       *checker
	priors  map[ast.Node][]scopedPrior
	callers map[*ast.FuncDecl][]caller
}

func (c *checker) newTxView(priors map[ast.Node][]scopedPrior) *txView {
	tv := &txView{c: c, priors: priors}
	if len(priors) > 0 {
		tv.callers = c.callersOf()
	}
	return tv
}

// of returns the view of t's statements by offset, or nil. A constant's
// text is judged at its every use.
func (tv *txView) of(t *sqltext.Text) func(int) rules.TxView {
	if len(tv.priors) == 0 {
		return nil
	}
	switch {
	case t.Scope != nil:
		return func(off int) rules.TxView { return tv.view(t.Scope, t.Pos(off, false), callerDepth) }
	case len(tv.c.Uses[t.Const]) > 0:
		uses := tv.c.Uses[t.Const]
		return func(int) rules.TxView {
			var v rules.TxView
			for i, u := range uses {
				if u.Scope == nil {
					return rules.TxView{}
				}
				uv := tv.view(u.Scope, u.Pos(0, false), callerDepth)
				v.Some = append(v.Some, uv.Some...)
				if i == 0 {
					v.Every = uv.Every
				} else {
					v.Every = intersect(v.Every, uv.Every)
				}
			}
			return v
		}
	}
	return nil
}

// before returns the priors of scope before pos, and of the package
// functions it calls before pos.
func (tv *txView) before(scope ast.Node, pos token.Pos) []rules.Prior {
	var out []rules.Prior
	for _, sp := range tv.priors[scope] {
		if sp.pos < pos {
			out = append(out, sp.Prior)
		}
	}
	for _, call := range tv.c.Calls[scope] {
		if call.Call.Pos() < pos {
			for _, sp := range tv.priors[call.Fn] {
				out = append(out, sp.Prior)
			}
		}
	}
	return out
}

// view is the view at pos in scope, following callers depth calls up.
func (tv *txView) view(scope ast.Node, pos token.Pos, depth int) rules.TxView {
	own := tv.before(scope, pos)
	v := rules.TxView{Every: own, Some: slices.Clone(own)}
	fd, ok := scope.(*ast.FuncDecl)
	if !ok || depth == 0 || len(tv.callers[fd]) == 0 {
		return v
	}
	var every []rules.Prior
	for i, call := range tv.callers[fd] {
		if call.scope == scope {
			return v // recursion: no caller's view holds for every run
		}
		cv := tv.view(call.scope, call.pos, depth-1)
		v.Some = append(v.Some, cv.Some...)
		if i == 0 {
			every = cv.Every
		} else {
			every = intersect(every, cv.Every)
		}
	}
	v.Every = append(v.Every, every...)
	return v
}

// caller is a call of a package function, in scope, at pos.
type caller struct {
	scope ast.Node
	pos   token.Pos
}

// callersOf indexes the package's calls by the function called, once.
func (c *checker) callersOf() map[*ast.FuncDecl][]caller {
	if c.callers != nil {
		return c.callers
	}
	c.callers = map[*ast.FuncDecl][]caller{}
	for scope, calls := range c.Calls {
		for _, call := range calls {
			c.callers[call.Fn] = append(c.callers[call.Fn], caller{scope, call.Call.Pos()})
		}
	}
	for _, cs := range c.callers {
		slices.SortFunc(cs, func(a, b caller) int { return int(a.pos - b.pos) })
	}
	return c.callers
}

// intersect keeps the priors of a that b has too (the same kind, table
// and keys).
func intersect(a, b []rules.Prior) []rules.Prior {
	var out []rules.Prior
	for _, p := range a {
		if slices.ContainsFunc(b, func(q rules.Prior) bool {
			return q.Kind == p.Kind && q.Table == p.Table && slices.Equal(q.Keys, p.Keys)
		}) {
			out = append(out, p)
		}
	}
	return out
}

// JoinViews adds what the module stage traced across packages to the
// package's view of each statement.
func JoinViews(pkg func(int) rules.TxView, module func(int) (rules.TxView, bool)) func(int) rules.TxView {
	return func(off int) rules.TxView {
		var v rules.TxView
		if pkg != nil {
			v = pkg(off)
		}
		if mv, ok := module(off); ok {
			v.Some = append(v.Some, mv.Some...)
			v.Every = append(v.Every, mv.Every...)
		}
		return v
	}
}

// priorsOf is rules.PriorsOf, naming where the statement at pos is only
// when it establishes something (most statements establish nothing).
func (c *checker) priorsOf(st *sqlparse.Statement, pos token.Pos) []rules.Prior {
	ps := rules.PriorsOf(st, "")
	if len(ps) > 0 {
		at := c.Where(pos)
		for i := range ps {
			ps[i].At = at
		}
	}
	return ps
}
