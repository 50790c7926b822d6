package txcheck

import (
	"go/ast"
	"go/types"

	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/txflow"
	"golang.org/x/tools/go/types/typeutil"
)

// observeSites records, in source order, what the transaction flow needs
// of the calls, literals and assignments the walk met.
func (c *checker) observeSites() {
	info := c.Pass.TypesInfo
	for i := range c.FlowSites {
		fs := &c.FlowSites[i]
		at, scope := fs.Site, fs.Site.Scope
		switch n := fs.Node.(type) {
		case *ast.CallExpr:
			if fn := fs.Fn; fn != nil {
				// Calls of module functions are recorded in every package:
				// a package that reaches no database may still call, or
				// retry, one that does (through an interface).
				module := c.Funcs[fn] != nil || c.inModule(fn) || gosql.OwnInterfaceMethod(fn, c.Pass.Pkg)
				if scope != nil {
					closure, loops := c.retryContext(at)
					if c.inModule(fn) || gosql.OwnInterfaceMethod(fn, c.Pass.Pkg) {
						c.outCalls = append(c.outCalls, outCall{scope, n, at.Parent, c.Key(fn), closure, loops, gosql.IsInterfaceMethod(fn)})
					}
					if module {
						// A configured retry function (-retry-funcs) re-runs what it is
						// handed, whatever its summary shows.
						c.noteFuncArgs(n, c.Key(fn), scope, closure || c.Settings.RetryFuncs.Has(fn), loops)
					} else {
						c.noteHandedOver(n, scope, closure || c.Settings.RetryFuncs.Has(fn), loops)
					}
				}
				if c.Settings.RetryFuncs.Has(fn) {
					c.retrySites = append(c.retrySites, txflow.Retry{Pos: n.Pos()})
				}
				if c.DB {
					c.observeCall(n, fn, fs.Key(), at)
				}
			} else if scope != nil {
				closure, loops := c.retryContext(at)
				switch f := typeutil.Callee(info, n).(type) {
				case *types.Var:
					c.varCalls = append(c.varCalls, varCall{scope, n, f, closure, loops})
					for _, fn := range c.FieldFuncs()[f] {
						c.noteFuncArgs(n, c.Key(fn), scope, closure, loops)
					}
				case nil:
					if lit, isLit := ast.Unparen(n.Fun).(*ast.FuncLit); isLit {
						// func() { ... }(), go func() { ... }(): run here.
						c.implicit = append(c.implicit, implicitCall{scope, gosql.LitKey(lit), lit.Pos(), closure, loops})
					}
				}
			}
		case *ast.CompositeLit:
			c.observeLiteral(n, at.Parent, scope)
		case *ast.FuncLit:
			// f := func() { ... }: called where it is made, as far as
			// anyone can tell.
			closure, loops := c.retryContext(at)
			c.implicit = append(c.implicit, implicitCall{scope, gosql.LitKey(n), n.Pos(), closure, loops})
		case *ast.AssignStmt:
			c.noteCallAssign(n, at)
			c.observeIsolationAssign(n, at.Parent)
		}
	}
	if len(c.serializable) > 0 {
		c.serializableClosures()
	}
}

// serializableClosures gives SERIALIZABLE options to the closure the same
// call is handed (pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel:
// pgx.Serializable}, func(tx pgx.Tx) error { ... })): the closure's
// statements run in that transaction, not its caller's.
func (c *checker) serializableClosures() {
	for i := range c.FlowSites {
		call, ok := c.FlowSites[i].Node.(*ast.CallExpr)
		if !ok {
			continue
		}
		for _, a := range call.Args {
			lit, isLit := ast.Unparen(a).(*ast.FuncLit)
			if !isLit {
				continue
			}
			for _, sp := range c.serializable {
				if call.Pos() <= sp.pos && sp.pos < call.End() && !(lit.Pos() <= sp.pos && sp.pos < lit.End()) && sp.scope != ast.Node(lit) {
					c.serializable = append(c.serializable, scopedPos{sp.pos, lit})
				}
			}
		}
	}
}
