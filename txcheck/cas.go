package txcheck

import (
	"go/ast"
	"go/types"
	"strings"

	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/rules"
)

// uncheckedCAS reports DSQL004 when the result of a CAS write is dropped,
// never read, or read without RowsAffected.
func (c *checker) uncheckedCAS(q *gosql.Query) {
	helper := "occ.ExecCAS"
	if strings.HasPrefix(q.Key.Pkg, gosql.PkgPGX) {
		helper = "occpgx.ExecCAS"
	}
	how := c.resultUse(q)
	if how == "" {
		return
	}
	msg := rules.UncheckedCASMessage(how, helper)
	fix, pkg := c.fix.CASFix(q)
	if fix != nil && !c.fix.CanImport(pkg) {
		// The fix would import a package the module cannot: say what to
		// add rather than break the build.
		fix = nil
		msg += "; `go get " + pkg + "`, and -fix rewrites it"
	}
	c.reportGo("DSQL004", q.Call.Pos(), q.Call.End(), msg, fix)
}

// resultUse says how the call's result is mishandled, or "" when the
// affected-row count is read (or the result escapes where we cannot see).
func (c *checker) resultUse(q *gosql.Query) string {
	info := c.Pass.TypesInfo
	parent := q.Parent
	var res ast.Expr
	switch p := parent.(type) {
	case *ast.ExprStmt:
		return "is discarded"
	case *ast.AssignStmt:
		if len(p.Rhs) != 1 || p.Rhs[0] != q.Call {
			return ""
		}
		res = p.Lhs[0]
	case *ast.ValueSpec:
		if len(p.Values) != 1 || p.Values[0] != q.Call {
			return ""
		}
		res = p.Names[0]
	default:
		return "" // returned, passed on, or chained: checked elsewhere
	}
	id, ok := res.(*ast.Ident)
	if !ok {
		return "" // stored in a field: escapes
	}
	if id.Name == "_" {
		return "is discarded"
	}
	obj := info.Defs[id]
	if obj == nil {
		obj = info.Uses[id]
	}
	switch c.countRead(obj, q.Scope, 0) {
	case readNever:
		return "is never read"
	case readOther:
		return "is read without RowsAffected()"
	}
	return ""
}

type readKind int

const (
	readNever readKind = iota
	readOther          // used, but never for the count
	readCount          // RowsAffected is called, or the value escapes
)

// countRead reports how obj is used in scope: its RowsAffected called,
// passed to a package function that calls it, returned or stored
// (escapes), or only used otherwise.
func (c *checker) countRead(obj types.Object, scope ast.Node, depth int) readKind {
	if obj == nil || scope == nil {
		return readCount
	}
	info := c.Pass.TypesInfo
	kind := readNever
	var stack []ast.Node
	ast.Inspect(scope, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		id, ok := n.(*ast.Ident)
		if !ok || info.Uses[id] != obj || kind == readCount {
			return true
		}
		parent := stack[len(stack)-2]
		if a, ok := parent.(*ast.AssignStmt); ok && len(a.Lhs) == len(a.Rhs) {
			for i, r := range a.Rhs {
				if l, ok := a.Lhs[i].(*ast.Ident); ok && r == id && l.Name == "_" {
					return true // `_ = res` silences the compiler, it reads nothing
				}
			}
		}
		kind = max(kind, readOther)
		switch p := parent.(type) {
		case *ast.SelectorExpr:
			if p.Sel.Name == "RowsAffected" {
				kind = readCount
			}
		case *ast.CallExpr:
			fn, _, _ := gosql.CalleeOf(info, p)
			fd := c.Funcs[fn]
			if fd == nil {
				kind = readCount // handed to code we do not see
				break
			}
			if param := paramAt(info, fd, p, id); param != nil && depth < 3 && c.countRead(param, fd, depth+1) == readCount {
				kind = readCount
			}
		case *ast.ReturnStmt, *ast.CompositeLit, *ast.KeyValueExpr:
			kind = readCount
		case *ast.AssignStmt:
			for _, r := range p.Rhs {
				if r == id {
					kind = readCount // stored elsewhere
				}
			}
		}
		return true
	})
	return kind
}

// paramAt returns the parameter of fd that receives arg in call.
func paramAt(info *types.Info, fd *ast.FuncDecl, call *ast.CallExpr, arg ast.Expr) types.Object {
	i := -1
	for j, a := range call.Args {
		if a == arg {
			i = j
		}
	}
	if i < 0 {
		return nil
	}
	for _, field := range fd.Type.Params.List {
		for _, name := range field.Names {
			if i == 0 {
				return info.Defs[name]
			}
			i--
		}
		if len(field.Names) == 0 {
			i--
		}
	}
	return nil
}
