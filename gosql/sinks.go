package gosql

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"

	"github.com/dsqllint/dsqllint/sqltext"
)

// sinkCalls finds the package's own query functions by data flow, the way
// the printf pass finds printf wrappers: a function whose string parameter
// reaches the query argument of a query call (`tx.Exec(ctx, query,
// args...)`) runs SQL at that parameter, on the handle that call runs on,
// whatever the function is called and wherever the parameter sits
// (`execLock(ctx, okIfNone, query, args...)`). Its calls in the package are
// query calls too: sinkQueries records them for the flow rules, with the
// call inside the function that runs the text, and the texts they pass
// are returned as references (the SQL itself is reported where it is
// written). Sinks of sinks are followed three calls deep.
func (c *Package) sinkCalls() []*sqltext.Text {
	// Most packages hand no parameter to a query call: nothing to do.
	if !slices.ContainsFunc(c.Queries, c.paramQuery) {
		return nil
	}
	params := c.stringParams()
	// The calls of package functions, in source order.
	var calls []localCall
	for _, lcs := range c.Calls {
		calls = append(calls, lcs...)
	}
	sort.Slice(calls, func(i, j int) bool { return calls[i].Call.Pos() < calls[j].Call.Pos() })

	type sink struct {
		fd  *ast.FuncDecl
		arg int
	}
	sinks := map[sink]bool{}
	var texts []*sqltext.Text
	frontier := c.Queries
	type found struct {
		sink
		inner *Query
	}
	for depth := 0; depth < 3 && len(frontier) > 0; depth++ {
		var added []found // in the frontier's order: findings must not depend on map order
		for _, q := range frontier {
			id, ok := ast.Unparen(q.arg).(*ast.Ident)
			if !ok {
				continue
			}
			p, ok := params[c.Pass.TypesInfo.Uses[id]]
			if !ok {
				continue
			}
			if !sinks[sink{p.fd, p.index}] {
				sinks[sink{p.fd, p.index}] = true
				added = append(added, found{sink{p.fd, p.index}, q})
			}
		}
		var next []*Query
		for _, lc := range calls {
			scope := lc.Scope
			for _, a := range added {
				sk, inner := a.sink, a.inner
				if lc.Fn != sk.fd || sk.arg >= len(lc.Call.Args) || lc.Call.Ellipsis != token.NoPos && sk.arg == len(lc.Call.Args)-1 {
					continue
				}
				arg := lc.Call.Args[sk.arg]
				t := c.textOf(arg)
				if t == nil {
					t = c.refText(arg)
				}
				if t == nil {
					t = c.indirectText(arg)
				}
				if t != nil {
					t.Known, t.Ref, t.Scope = true, true, scope
					texts = append(texts, t)
				}
				sq := &Query{Call: lc.Call, Key: inner.Key, Text: t, Site: lc.Site, Via: inner, arg: arg}
				c.sinkQueries = append(c.sinkQueries, sq)
				next = append(next, sq)
			}
		}
		frontier = next
	}
	return texts
}

// paramQuery reports a query call whose SQL argument is a parameter.
func (c *Package) paramQuery(q *Query) bool {
	id, ok := ast.Unparen(q.arg).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := c.Pass.TypesInfo.Uses[id].(*types.Var)
	return ok && v.Kind() == types.ParamVar
}

// stringParam is a string parameter of a package function.
type stringParam struct {
	fd    *ast.FuncDecl
	index int
}

// stringParams maps the string parameters of the package's functions to
// where they sit.
func (c *Package) stringParams() map[types.Object]stringParam {
	out := map[types.Object]stringParam{}
	for _, fd := range c.Funcs {
		i := 0
		for _, field := range fd.Type.Params.List {
			isString := false
			if b, ok := c.Pass.TypesInfo.TypeOf(field.Type).(*types.Basic); ok && b.Kind() == types.String {
				isString = true
			}
			if len(field.Names) == 0 {
				i++
				continue
			}
			for _, name := range field.Names {
				if obj := c.Pass.TypesInfo.Defs[name]; obj != nil && isString {
					out[obj] = stringParam{fd, i}
				}
				i++
			}
		}
	}
	return out
}

// AllQueries returns the driver's query calls, then the calls of the
// package's own query functions.
func (c *Package) AllQueries() []*Query {
	if len(c.sinkQueries) == 0 {
		return c.Queries
	}
	return append(slices.Clip(c.Queries), c.sinkQueries...)
}
