package gosql

import (
	"go/ast"
	"go/types"
	"strings"

	"github.com/dsqllint/dsqllint/sqltext"
)

const pkgSquirrel = "github.com/Masterminds/squirrel"

// squirrelRuns are the builder methods that run the statement, and the
// driver method each stands for.
var squirrelRuns = map[string]Callee{
	"Exec": {PkgSQL, "Exec", true}, "ExecContext": {PkgSQL, "ExecContext", true},
	"Query": {PkgSQL, "Query", true}, "QueryContext": {PkgSQL, "QueryContext", true},
	"QueryRow": {PkgSQL, "QueryRow", true}, "QueryRowContext": {PkgSQL, "QueryRowContext", true},
	"Scan": {PkgSQL, "QueryRow", true}, "ScanContext": {PkgSQL, "QueryRowContext", true},
}

// squirrelMethod returns the name of a squirrel builder method call and the
// builder it is called on.
func (c *Package) squirrelMethod(call *ast.CallExpr) (string, ast.Expr, bool) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return "", nil, false
	}
	fn, _, ok := CalleeOf(c.Pass.TypesInfo, call)
	if !ok || fn.Pkg().Path() != pkgSquirrel {
		return "", nil, false
	}
	if s, ok := c.Pass.TypesInfo.Selections[sel]; !ok || s.Kind() != types.MethodVal {
		return fn.Name(), nil, true // sq.Select(...): a root
	}
	return fn.Name(), sel.X, true
}

// observeSquirrel handles a call that runs or renders a squirrel builder's
// statement: the statement is rendered as SQL (squirrelText) and checked
// like any other text, and a call that runs it is a query call on the
// handle RunWith gave it.
func (c *Package) observeSquirrel(call *ast.CallExpr, at Site) *sqltext.Text {
	name, recv, ok := c.squirrelMethod(call)
	if !ok || recv == nil {
		return nil
	}
	key, runs := squirrelRuns[name]
	if !runs && name != "ToSql" {
		return nil
	}
	t, handle := c.squirrelText(recv)
	if t == nil {
		return nil
	}
	t.Known, t.Scope = true, at.Scope
	if runs {
		c.Queries = append(c.Queries, &Query{Call: call, Key: key, Text: t, Site: at, handle: handle})
	}
	return t
}

// squirrelText renders the statement the squirrel builder b builds: its
// steps followed back through the chain and through a variable defined
// once and extended (`q = q.Where(...)`, every step, the fullest variant).
// Synthetic SQL maps to the step that wrote it, a string literal argument
// byte for byte. It returns nil when a step or a predicate is not known at
// analysis time: a guard the rendering left out would make a fenced write
// look unfenced. handle is the argument of RunWith, if any.
func (c *Package) squirrelText(b ast.Expr) (_ *sqltext.Text, handle ast.Expr) {
	var steps []*ast.CallExpr // innermost first
	if !c.squirrelSteps(b, &steps, 0) || len(steps) == 0 {
		return nil, nil
	}
	root := steps[0]
	rootName, _, _ := c.squirrelMethod(root)
	var tb sqltext.Builder
	var where, suffix []*ast.CallExpr
	var sets []string
	var setAt []*ast.CallExpr
	cols, table := "*", ""
	var tableAt ast.Node = root
	switch rootName {
	case "Select":
		if len(root.Args) > 0 {
			var names []string
			for _, a := range root.Args {
				v, ok := c.knownString(a)
				if !ok {
					v = "x"
				}
				names = append(names, v)
			}
			cols = strings.Join(names, ", ")
		}
	case "Update", "Delete":
		if len(root.Args) != 1 {
			return nil, nil
		}
		v, ok := c.knownString(root.Args[0])
		if !ok {
			return nil, nil
		}
		table = v
	default:
		return nil, nil // inserts lock nothing and fence nothing
	}
	for _, s := range steps[1:] {
		name, _, _ := c.squirrelMethod(s)
		switch name {
		case "From":
			v, ok := c.knownString(s.Args[0])
			if !ok {
				return nil, nil
			}
			table, tableAt = v, s
		case "Where":
			where = append(where, s)
		case "Suffix":
			suffix = append(suffix, s)
		case "Set":
			col, ok := c.knownString(s.Args[0])
			if !ok {
				return nil, nil
			}
			v, ok := c.squirrelValue(s.Args[1])
			if !ok {
				return nil, nil
			}
			sets, setAt = append(sets, col+" = "+v), append(setAt, s)
		case "SetMap":
			lit, ok := ast.Unparen(s.Args[0]).(*ast.CompositeLit)
			if !ok {
				return nil, nil
			}
			for _, e := range lit.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				col, known := "", false
				if ok {
					col, known = c.knownString(kv.Key)
				}
				if !known {
					return nil, nil
				}
				v, ok := c.squirrelValue(kv.Value)
				if !ok {
					return nil, nil
				}
				sets, setAt = append(sets, col+" = "+v), append(setAt, s)
			}
		case "RunWith":
			handle = s.Args[0]
		case "PlaceholderFormat", "OrderBy", "Limit", "Offset", "Distinct", "Options", "GroupBy":
			// Nothing the rules read.
		default:
			return nil, nil // a join, a prefix, a having: not rendered
		}
	}
	if table == "" {
		return nil, nil
	}
	switch rootName {
	case "Select":
		tb.Opaque("SELECT "+cols+" FROM ", root)
		tb.Opaque(table, tableAt)
	case "Update":
		if len(sets) == 0 {
			return nil, nil
		}
		tb.Opaque("UPDATE "+table+" SET ", root)
		for i, s := range sets {
			if i > 0 {
				tb.Opaque(", ", setAt[i])
			}
			tb.Opaque(s, setAt[i])
		}
	case "Delete":
		tb.Opaque("DELETE FROM "+table, root)
	}
	for i, w := range where {
		pred, ok := c.squirrelPred(w.Args[0], 0)
		if !ok {
			return nil, nil
		}
		sep := " AND "
		if i == 0 {
			sep = " WHERE "
		}
		tb.Opaque(sep, w)
		tb.Opaque("("+pred+")", w)
	}
	for _, s := range suffix {
		tb.Opaque(" ", s)
		if lit, ok := ast.Unparen(s.Args[0]).(*ast.BasicLit); ok && tb.Literal(lit) {
			continue
		}
		v, ok := c.knownString(s.Args[0])
		if !ok {
			return nil, nil
		}
		tb.Opaque(v, s)
	}
	t := tb.Text()
	t.Node = b
	return t, handle
}

// squirrelSteps appends the builder calls that make b, innermost first.
func (c *Package) squirrelSteps(b ast.Expr, steps *[]*ast.CallExpr, depth int) bool {
	if depth > 64 {
		return false
	}
	switch x := ast.Unparen(b).(type) {
	case *ast.CallExpr:
		_, recv, ok := c.squirrelMethod(x)
		if !ok {
			return false
		}
		if recv != nil && !c.squirrelRoot(x) {
			if !c.squirrelSteps(recv, steps, depth+1) {
				return false
			}
		}
		*steps = append(*steps, x)
		return true
	case *ast.Ident:
		obj := c.Pass.TypesInfo.Uses[x]
		def, ok := c.Defs[obj]
		if !ok || !c.squirrelSteps(def, steps, depth+1) {
			return false
		}
		// q = q.Where(...): the steps added to the variable since.
		for _, more := range c.builderSteps[obj] {
			var extra []*ast.CallExpr
			if !c.squirrelStepsOnto(more, obj, &extra, depth+1) {
				return false
			}
			*steps = append(*steps, extra...)
		}
		return true
	}
	return false
}

// squirrelStepsOnto appends the steps of e, a chain on the builder
// variable obj, without the variable itself.
func (c *Package) squirrelStepsOnto(e ast.Expr, obj types.Object, steps *[]*ast.CallExpr, depth int) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || depth > 64 {
		return false
	}
	_, recv, ok := c.squirrelMethod(call)
	if !ok || recv == nil {
		return false
	}
	if id, isID := ast.Unparen(recv).(*ast.Ident); isID && c.Pass.TypesInfo.Uses[id] == obj {
		*steps = append(*steps, call)
		return true
	}
	if !c.squirrelStepsOnto(recv, obj, steps, depth+1) {
		return false
	}
	*steps = append(*steps, call)
	return true
}

// squirrelRoot reports a call that starts a statement: Select, Update,
// Delete or Insert, of the package or of a StatementBuilder.
func (c *Package) squirrelRoot(call *ast.CallExpr) bool {
	name, _, ok := c.squirrelMethod(call)
	if !ok {
		return false
	}
	switch name {
	case "Select", "Update", "Delete", "Insert", "Replace":
		fn, _, _ := CalleeOf(c.Pass.TypesInfo, call)
		sig := fn.Type().(*types.Signature)
		return sig.Recv() == nil || IsNamed(sig.Recv().Type(), pkgSquirrel, "StatementBuilderType", false)
	}
	return false
}

// isSquirrelBuilder reports whether t is one of squirrel's builders.
func isSquirrelBuilder(t types.Type) bool {
	for _, n := range []string{"SelectBuilder", "UpdateBuilder", "DeleteBuilder"} {
		if IsNamed(t, pkgSquirrel, n, false) {
			return true
		}
	}
	return false
}

// squirrelValue renders a SET value: a sq.Expr's SQL, else a parameter.
// A sq.Expr whose SQL is not known renders nothing: it may compute the
// value from the row (`CASE state WHEN ... END`), no blind write.
func (c *Package) squirrelValue(e ast.Expr) (string, bool) {
	if call, ok := ast.Unparen(e).(*ast.CallExpr); ok {
		if name, recv, ok := c.squirrelMethod(call); ok && recv == nil && name == "Expr" && len(call.Args) > 0 {
			v, ok := c.knownString(call.Args[0])
			return "(" + v + ")", ok
		}
	}
	return "?", true
}

// squirrelOps are the map predicates and the operator each renders.
var squirrelOps = map[string]string{"Eq": "=", "NotEq": "<>", "Lt": "<", "LtOrEq": "<=", "Gt": ">", "GtOrEq": ">=", "Like": "LIKE", "NotLike": "NOT LIKE"}

// squirrelPred renders a Where argument: SQL text, sq.Expr, the map
// predicates (sq.Eq{"id": id}, a slice value rendering IN, nil IS NULL),
// sq.And and sq.Or, or a variable defined once as one of these.
func (c *Package) squirrelPred(e ast.Expr, depth int) (string, bool) {
	if depth > 16 {
		return "", false
	}
	if v, ok := c.knownString(e); ok {
		return v, true
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if def, ok := c.Defs[c.Pass.TypesInfo.Uses[x]]; ok {
			return c.squirrelPred(def, depth+1)
		}
	case *ast.CallExpr:
		if name, recv, ok := c.squirrelMethod(x); ok && recv == nil && name == "Expr" && len(x.Args) > 0 {
			return c.knownString(x.Args[0])
		}
	case *ast.CompositeLit:
		n, ok := types.Unalias(c.Pass.TypesInfo.TypeOf(x)).(*types.Named)
		if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != pkgSquirrel {
			return "", false
		}
		var parts []string
		switch name := n.Obj().Name(); name {
		case "And", "Or":
			for _, el := range x.Elts {
				p, ok := c.squirrelPred(el, depth+1)
				if !ok {
					return "", false
				}
				parts = append(parts, "("+p+")")
			}
			if len(parts) == 0 {
				return "", false
			}
			return strings.Join(parts, " "+strings.ToUpper(name)+" "), true
		default:
			op, ok := squirrelOps[name]
			if !ok {
				return "", false
			}
			for _, el := range x.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					return "", false
				}
				col, ok := c.knownString(kv.Key)
				if !ok {
					return "", false
				}
				parts = append(parts, squirrelCompare(col, op, c.Pass.TypesInfo.TypeOf(kv.Value)))
			}
			if len(parts) == 0 {
				return "", false
			}
			return strings.Join(parts, " AND "), true
		}
	}
	return "", false
}

// squirrelCompare renders one key of a map predicate as squirrel does.
func squirrelCompare(col, op string, value types.Type) string {
	if b, ok := value.(*types.Basic); ok && b.Kind() == types.UntypedNil {
		if op == "<>" {
			return col + " IS NOT NULL"
		}
		return col + " IS NULL"
	}
	if s, ok := value.Underlying().(*types.Slice); ok && !isByte(s.Elem()) && (op == "=" || op == "<>") {
		if op == "<>" {
			return col + " NOT IN (?)"
		}
		return col + " IN (?)"
	}
	return col + " " + op + " ?"
}

func isByte(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.Byte
}
