package gosql

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// Query text by data flow, for the flow rules: what a query argument holds
// when it is not written at the call. A store's adapters hand statements
// back as strings or in struct fields (`NextOffsetQuery(topic, group)
// Query{Query: "SELECT ... FOR UPDATE", Args: ...}`), other methods
// concatenate them into larger ones, and a transaction runs the result
// (`tx.QueryContext(ctx, q.Query, q.Args...)`). evalString follows such a
// value through local variables, parameters (to the arguments of the call
// being evaluated), return values and struct fields of the package's
// functions, interface methods (to the package's implementations, the
// fullest text), concatenation and fmt.Sprintf. What is not known at
// analysis time stands for a name (sqlparse.HoleIdent), which the parser
// blanks where a name breaks the statement.

// evalDepth bounds how deep the calls, fields and definitions followed
// nest; maxEvalSteps the work of one evaluation, whatever the branching
// of interface methods with many implementations.
const (
	evalDepth    = 24
	maxEvalSteps = 2000
)

// frame binds the parameters of the function being evaluated to the
// arguments of the call, evaluated in the caller's frame.
type frame struct {
	args   map[types.Object]ast.Expr
	caller *frame
}

// evalString returns the string e holds, with holes for unknown pieces;
// ok is false when no piece of it is known.
func (c *Package) evalString(e ast.Expr, f *frame, depth int) (string, bool) {
	if v, ok := c.ConstString(e); ok {
		c.noteOrigin(e)
		return v, true
	}
	if c.evalSteps++; depth > evalDepth || c.evalSteps > maxEvalSteps {
		return "", false
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return "", false
		}
		l, ok1 := c.evalString(x.X, f, depth+1)
		r, ok2 := c.evalString(x.Y, f, depth+1)
		if !ok1 {
			l = sqlparse.HoleIdent
		}
		if !ok2 {
			r = sqlparse.HoleIdent
		}
		return l + r, ok1 || ok2
	case *ast.Ident:
		obj := c.Pass.TypesInfo.Uses[x]
		if f != nil {
			if arg, ok := f.args[obj]; ok {
				return c.evalString(arg, f.caller, depth+1)
			}
		}
		if def, ok := c.Defs[obj]; ok {
			s, ok := c.evalString(def, f, depth+1)
			c.noteRanges(c.appendOrigins[obj])
			return s + strings.Join(c.appends[obj], ""), ok // with what was added since, the fullest variant
		}
		if call, ok := c.results[obj]; ok {
			return c.evalString(call, f, depth+1)
		}
		if elem, ok := c.rangedElem(obj); ok {
			return c.evalString(elem, f, depth+1) // for _, stmt := range backfills { fmt.Sprintf(stmt, n) }
		}
	case *ast.SelectorExpr:
		if sel, ok := c.Pass.TypesInfo.Selections[x]; ok && sel.Kind() == types.FieldVal {
			return c.evalField(x.X, x.Sel.Name, f, depth+1)
		}
	case *ast.CallExpr:
		if fn, _, ok := CalleeOf(c.Pass.TypesInfo, x); ok && fn.Pkg().Path() == "fmt" && fn.Name() == "Sprintf" && len(x.Args) > 0 {
			return c.evalSprintf(x, f, depth)
		}
		var best string
		found := false
		c.eachResult(x, f, depth, func(res ast.Expr, rf *frame) {
			if s, ok := c.evalString(res, rf, depth+1); ok && len(s) > len(best) {
				best, found = s, true
			}
		})
		return best, found
	}
	return "", false
}

// provenance is where a text assembled by data flow was written.
type provenance struct {
	ranges [][2]token.Pos
	consts []types.Object
}

// noteOrigin records, while a text is being assembled (c.prov set), the
// string literals and named constants of the expression e it reads.
func (c *Package) noteOrigin(e ast.Expr) {
	if c.prov == nil {
		return
	}
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				c.prov.ranges = append(c.prov.ranges, [2]token.Pos{n.Pos(), n.End()})
			}
		case *ast.Ident:
			if k, ok := c.Pass.TypesInfo.Uses[n].(*types.Const); ok {
				c.prov.consts = append(c.prov.consts, k)
			}
		}
		return true
	})
}

// noteRanges records, while a text is being assembled, where pieces
// appended to a variable were written.
func (c *Package) noteRanges(rs [][2]token.Pos) {
	if c.prov != nil {
		c.prov.ranges = append(c.prov.ranges, rs...)
	}
}

// evalField returns the string field name of the struct value x holds.
func (c *Package) evalField(x ast.Expr, name string, f *frame, depth int) (string, bool) {
	if c.evalSteps++; depth > evalDepth || c.evalSteps > maxEvalSteps {
		return "", false
	}
	switch x := ast.Unparen(x).(type) {
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			return c.evalField(x.X, name, f, depth+1)
		}
	case *ast.CompositeLit:
		for i, el := range x.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok && id.Name == name {
					return c.evalString(kv.Value, f, depth+1)
				}
			} else if st, ok := c.Pass.TypesInfo.TypeOf(x).Underlying().(*types.Struct); ok && i < st.NumFields() && st.Field(i).Name() == name {
				return c.evalString(el, f, depth+1) // Query{q, args}
			}
		}
	case *ast.Ident:
		obj := c.Pass.TypesInfo.Uses[x]
		if f != nil {
			if arg, ok := f.args[obj]; ok {
				return c.evalField(arg, name, f.caller, depth+1)
			}
		}
		if def, ok := c.Defs[obj]; ok {
			return c.evalField(def, name, f, depth+1)
		}
		if call, ok := c.results[obj]; ok {
			return c.evalField(call, name, f, depth+1)
		}
	case *ast.CallExpr:
		var best string
		found := false
		c.eachResult(x, f, depth, func(res ast.Expr, rf *frame) {
			if s, ok := c.evalField(res, name, rf, depth+1); ok && len(s) > len(best) {
				best, found = s, true
			}
		})
		return best, found
	}
	return "", false
}

// evalSprintf formats a constant format with the arguments' strings, or
// holes where they are not known.
func (c *Package) evalSprintf(call *ast.CallExpr, f *frame, depth int) (string, bool) {
	format, ok := c.evalString(call.Args[0], f, depth+1)
	if !ok {
		return "", false
	}
	var b strings.Builder
	arg := 1
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			b.WriteByte(format[i])
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("+-# 0123456789.[]", format[j]) >= 0 {
			j++
		}
		if j == len(format) {
			b.WriteString(format[i:])
			break
		}
		// A verb right after `$` numbers a placeholder ($%d): a number.
		hole := sqlparse.HoleIdent
		if strings.HasSuffix(b.String(), "$") {
			hole = "1"
		}
		switch verb := format[j]; {
		case verb == '%':
			b.WriteByte('%')
		case arg < len(call.Args):
			if s, ok := c.evalString(call.Args[arg], f, depth+1); ok && (verb == 's' || verb == 'v') {
				b.WriteString(s)
			} else {
				b.WriteString(hole)
			}
			arg++
		default:
			b.WriteString(hole)
		}
		i = j
	}
	return b.String(), true
}

// eachResult calls visit with the first result of every return of the
// function call invokes, and the frame binding its parameters to call's
// arguments: a function or method of the package, or an interface method,
// for each of the package's methods that implement it.
func (c *Package) eachResult(call *ast.CallExpr, f *frame, depth int, visit func(ast.Expr, *frame)) {
	fn, _, ok := CalleeOf(c.Pass.TypesInfo, call)
	if !ok || depth > evalDepth {
		return
	}
	var decls []*ast.FuncDecl
	if fd := c.Funcs[fn]; fd != nil {
		decls = append(decls, fd)
	} else if IsInterfaceMethod(fn) {
		decls = c.Implementations(fn)
	}
	for _, fd := range decls {
		inner := &frame{args: map[types.Object]ast.Expr{}, caller: f}
		i := 0
		for _, field := range fd.Type.Params.List {
			for _, id := range field.Names {
				if obj := c.Pass.TypesInfo.Defs[id]; obj != nil && i < len(call.Args) {
					inner.args[obj] = call.Args[i]
				}
				i++
			}
			if len(field.Names) == 0 {
				i++
			}
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false // its returns are its own
			case *ast.ReturnStmt:
				if len(n.Results) > 0 {
					visit(n.Results[0], inner)
				}
			}
			return true
		})
	}
}

// Implementations returns the package's methods that implement the
// interface method m.
func (c *Package) Implementations(m *types.Func) []*ast.FuncDecl {
	sig, ok := m.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil
	}
	iface, ok := sig.Recv().Type().Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	var out []*ast.FuncDecl
	for _, ptr := range c.PointerTypes() {
		if !types.Implements(ptr, iface) {
			continue
		}
		obj, _, _ := types.LookupFieldOrMethod(ptr, true, m.Pkg(), m.Name())
		if impl, ok := obj.(*types.Func); ok {
			if fd := c.Funcs[impl]; fd != nil {
				out = append(out, fd)
			}
		}
	}
	return out
}
