package txcheck

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/dsqllint/dsqllint/gosql"
)

// An error translation layer turns a serialization failure into an error
// of its own (Ory's sqlcon: `case "40001": return
// ErrConcurrentUpdate().WithWrap(err)`), and the retry loops above it
// test for that error: `errors.Is(sqlcon.HandleError(err),
// sqlcon.ErrConcurrentUpdate())`, `err == store.ErrConflict`. Such an
// error is a sentinel: what the package's branches testing for 40001
// return. A loop that tests for one retries on 40001; one of another
// package of the module is left to the module stage, which finds it among
// that package's Predicates.

// sentinels returns the package's sentinels by key.
func (c *checker) sentinels() map[types.Object]string {
	if c.sentinelSet != nil {
		return c.sentinelSet
	}
	c.sentinelSet = map[types.Object]string{}
	for _, b := range c.ConflictBranches {
		var body []ast.Stmt
		switch b := b.(type) {
		case *ast.CaseClause:
			body = b.Body
		case *ast.IfStmt:
			body = b.Body.List
		}
		for _, st := range body {
			ast.Inspect(st, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					return false // its returns are its own
				case *ast.ReturnStmt:
					for _, r := range n.Results {
						ast.Inspect(r, func(x ast.Node) bool {
							if obj, key := c.sentinelRef(x); obj != nil && obj.Pkg() == c.Pass.Pkg {
								c.sentinelSet[obj] = key
							}
							return true
						})
					}
					return false
				}
				return true
			})
		}
	}
	return c.sentinelSet
}

// sentinelRef returns the error an expression names as a sentinel could
// be: a call, with no arguments, of a package function whose one result
// is an error (ErrConcurrentUpdate()), or a package variable of an error
// type (ErrConflict); with its key.
func (c *checker) sentinelRef(n ast.Node) (types.Object, string) {
	switch e := n.(type) {
	case *ast.CallExpr:
		fn, ok := typeutil.Callee(c.Pass.TypesInfo, e).(*types.Func)
		if !ok || fn.Pkg() == nil || len(e.Args) != 0 {
			return nil, ""
		}
		sig := fn.Type().(*types.Signature)
		if sig.Recv() != nil || sig.Params().Len() != 0 || sig.Results().Len() != 1 || !isErrorValue(sig.Results().At(0).Type()) {
			return nil, ""
		}
		return fn, c.Key(fn)
	case *ast.Ident, *ast.SelectorExpr:
		id, ok := e.(*ast.Ident)
		if !ok {
			id = e.(*ast.SelectorExpr).Sel
		}
		v, ok := c.Pass.TypesInfo.Uses[id].(*types.Var)
		if !ok || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() || !isErrorValue(v.Type()) {
			return nil, ""
		}
		return v, v.Pkg().Path() + "." + v.Name()
	}
	return nil, ""
}

var errorIface = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)

// isErrorValue reports a type whose values are errors.
func isErrorValue(t types.Type) bool {
	return types.Implements(t, errorIface) || types.Implements(types.NewPointer(t), errorIface) && !types.IsInterface(t)
}

// testsSentinel reports a test for a sentinel (errors.Is(err, X), err ==
// X): true for one of the package's own; one of another package of the
// module is added to pending.
func (c *checker) testsSentinel(n ast.Node, pending *[]string) bool {
	var targets []ast.Expr
	switch n := n.(type) {
	case *ast.CallExpr:
		fn, ok := typeutil.Callee(c.Pass.TypesInfo, n).(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Name() != "Is" || len(n.Args) != 2 || !gosql.IsErrorsPackage(fn.Pkg().Path()) {
			return false
		}
		targets = n.Args[1:]
	case *ast.BinaryExpr:
		if n.Op != token.EQL && n.Op != token.NEQ {
			return false
		}
		targets = []ast.Expr{n.X, n.Y}
	default:
		return false
	}
	for _, t := range targets {
		obj, key := c.sentinelRef(ast.Unparen(t))
		switch {
		case obj == nil:
		case obj.Pkg() == c.Pass.Pkg:
			if _, ok := c.sentinels()[obj]; ok {
				return true
			}
		case pending != nil && c.inModulePkg(obj.Pkg()):
			*pending = append(*pending, key)
		}
	}
	return false
}
