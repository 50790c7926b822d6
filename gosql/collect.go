package gosql

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/dsqllint/dsqllint/internal/growbuf"
	"github.com/dsqllint/dsqllint/sqlparse"
	"github.com/dsqllint/dsqllint/sqltext"
)

// Collect finds the candidate SQL texts of the package's Go files, in
// source order, and records the calls each function makes to the package's
// own functions.
func (c *Package) Collect() []*sqltext.Text {
	info := c.Pass.TypesInfo
	c.Defs = map[types.Object]ast.Expr{}
	for _, f := range c.Pass.Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if fn, ok := info.Defs[d.Name].(*types.Func); ok && d.Body != nil {
					c.Funcs[fn] = d
				}
			case *ast.GenDecl:
				// Package variables first: a retry loop may check an error
				// value declared further down (errConflict = ...).
				for _, sp := range d.Specs {
					if vs, ok := sp.(*ast.ValueSpec); ok && len(vs.Names) == 1 && len(vs.Values) == 1 {
						if obj := info.Defs[vs.Names[0]]; obj != nil {
							c.Defs[obj] = vs.Values[0]
						}
					}
				}
			}
		}
	}
	c.Calls = map[ast.Node][]localCall{}
	c.Uses = map[types.Object][]*sqltext.Text{}
	c.results = map[types.Object]ast.Expr{}
	c.current, c.defBlocks = map[types.Object]ast.Expr{}, map[types.Object]ast.Node{}
	c.appends = map[types.Object][]string{}
	c.appendOrigins = map[types.Object][][2]token.Pos{}
	c.builderSteps = map[types.Object][]ast.Expr{}
	c.nonSQL = map[types.Object]bool{}
	c.sprintfs = map[*ast.BasicLit]*ast.CallExpr{}
	db := ReachesDB(c.Pass.Pkg)
	c.DB = db
	var texts []*sqltext.Text
	c.FlowSites = flowSites.Get()
	defer func() { c.FlowSites = flowSites.Keep(c.FlowSites) }()
	for _, f := range c.Pass.Files {
		c.Directives = append(c.Directives, goDirectives(c.Pass.Fset, f)...)
		var stack []ast.Node
		// frames holds where the children of the nodes sit (their
		// function, the call a closure is handed to, the loops around
		// them): an entry only where a function or a loop starts, with
		// the stack depth of the node that started it, so that no node
		// pays for more than its place on the stack.
		type depthFrame struct {
			depth int
			fr    *Frame
		}
		frames := []depthFrame{{0, &topFrame}}
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				if top := len(frames) - 1; frames[top].depth > len(stack) {
					frames = frames[:top]
				}
				return true
			}
			fr, parent := frames[len(frames)-1].fr, ast.Node(nil)
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			var inner *Frame
			switch n := n.(type) {
			case *ast.FuncDecl:
				inner = &Frame{Scope: n}
			case *ast.FuncLit:
				inner = &Frame{Scope: n}
				inner.Handed, _ = parent.(*ast.CallExpr)
				if inner.Handed != nil && ast.Unparen(inner.Handed.Fun) == n {
					inner.Loops = fr.Loops // called where it stands: func() error { ... }() runs in the loop around it
				}
			case *ast.ForStmt:
				inner = &Frame{fr.Scope, fr.Handed, append([]ast.Node{n.Body}, fr.Loops...)}
			case *ast.RangeStmt:
				inner = &Frame{fr.Scope, fr.Handed, append([]ast.Node{n.Body}, fr.Loops...)}
				c.noteRangedList(n)
			}
			stack = append(stack, n)
			if inner != nil {
				frames = append(frames, depthFrame{len(stack), inner})
			}
			at := Site{parent, fr}
			scope := at.Scope
			switch n := n.(type) {
			case *ast.CallExpr:
				callee := typeutil.Callee(info, n)
				fn, key, ok := calleeKey(callee)
				var arg ast.Expr
				if ok {
					shift := 0
					if d, sh, isDBTX := dbtxCallee(fn); isDBTX {
						key, shift = d, sh // a query method of an interface or a wrapper
					}
					if nonSQLClient(fn.Pkg().Path()) {
						c.markNonSQLArgs(n)
					}
					if fd := c.Funcs[fn]; fd != nil && scope != nil {
						c.Calls[scope] = append(c.Calls[scope], localCall{fd, n, at})
					}
					if fn.Name() == "Sprintf" && fn.Pkg().Path() == "fmt" && len(n.Args) > 1 {
						if lit, ok := ast.Unparen(n.Args[0]).(*ast.BasicLit); ok {
							c.sprintfs[lit] = n // its %s verbs name the arguments (holes.go)
						}
					}
					if db {
						c.observeWrite(n)
						if fn.Pkg().Path() == pkgSquirrel {
							if t := c.observeSquirrel(n, at); t != nil {
								texts = append(texts, t)
							}
						}
						arg = queryArgAt(key, shift, n)
					}
				} else if scope != nil {
					if v, isVar := callee.(*types.Var); isVar {
						// s.runFn(...), a field the package sets to a method
						// value (s.runFn = s.run, for tests to replace): a call
						// of what it holds.
						for _, fn := range c.FieldFuncs()[v] {
							if fd := c.Funcs[fn]; fd != nil {
								c.Calls[scope] = append(c.Calls[scope], localCall{fd, n, at})
							}
						}
					}
				}
				if flowReads(callee, ok, fn, n, info) {
					c.FlowSites = append(c.FlowSites, flowSite{n, at, fn})
				}
				if arg != nil {
					t := c.textOf(arg)
					if t != nil {
						t.Known, t.Scope = true, scope
						texts = append(texts, t)
					} else if t = c.refText(arg); t != nil {
						t.Scope = scope
						texts = append(texts, t)
						c.Uses[t.Const] = append(c.Uses[t.Const], t)
					} else if t = c.indirectText(arg); t != nil {
						t.Scope = scope
						texts = append(texts, t)
					}
					c.Queries = append(c.Queries, &Query{Call: n, Key: key, Text: t, Site: at, arg: arg})
				}
			case *ast.CompositeLit:
				if db {
					c.FlowSites = append(c.FlowSites, flowSite{Node: n, Site: at})
				}
			case *ast.FuncLit:
				if scope != nil {
					switch at.Parent.(type) {
					case *ast.AssignStmt, *ast.ValueSpec:
						c.FlowSites = append(c.FlowSites, flowSite{Node: n, Site: at})
					}
				}
			case *ast.AssignStmt:
				if db {
					c.observeAssign(n, at.Parent)
					c.FlowSites = append(c.FlowSites, flowSite{Node: n, Site: at})
				}
			case *ast.IfStmt, *ast.CaseClause:
				if db {
					var grand ast.Node
					if len(stack) > 2 {
						grand = stack[len(stack)-3] // stack ends with n, then its parent
					}
					c.noteDialectBranch(n, parent, grand)
				}
				c.noteConflictBranch(n) // an error translation layer need not reach a database
			case *ast.ValueSpec:
				if db && len(n.Names) == 1 && len(n.Values) == 1 {
					if obj := info.Defs[n.Names[0]]; obj != nil {
						c.Defs[obj] = n.Values[0]
					}
				}
			case *ast.BasicLit, *ast.BinaryExpr:
				// Only these carry literal text; a named constant is checked
				// at its declaration. Cheap type tests before map lookups.
				if lit, ok := n.(*ast.BasicLit); ok {
					// A lone literal the prefilter rejects is no text in any
					// role: rule it out before the type and stack lookups.
					if lit.Kind != token.STRING {
						return true
					}
					if val, _, ok := sqltext.DecodeLiteral(lit.Value); !ok || !sqlparse.LooksLikeSQL(val) {
						return true
					}
				}
				if bin, ok := n.(*ast.BinaryExpr); ok && bin.Op != token.ADD {
					return true
				}
				if !c.isStringExpr(n.(ast.Expr)) || c.isOperand(stack) || c.isQueryArg(stack) || c.isMessage(stack) || c.nonSQLArg(stack) {
					return true
				}
				if t := c.textWithTail(n.(ast.Expr), builderPiece(stack)); t != nil {
					t.Scope = scope
					t.Const = c.declared(stack)
					texts = append(texts, t)
					// Inspect makes no closing call when we return false
					// (a literal starts no frame).
					stack = stack[:len(stack)-1]
					return false
				}
			}
			return true
		})
	}
	if db {
		texts = append(texts, c.sinkCalls()...)
	}
	return texts
}

// flowSites lends a walk an array to grow its flow sites in.
var flowSites growbuf.Pool[flowSite]

// Site is where a node sits: the function around it (nil at package
// level), the node holding it, and what may run it again — the bodies of
// the loops around it in its function, innermost first, and the call the
// function literal around it is handed to.
type Site struct {
	Parent ast.Node
	*Frame
}

// Frame is what the nodes of one function or loop body share of their
// Site: one per function and loop, not per node.
type Frame struct {
	Scope  ast.Node
	Handed *ast.CallExpr
	Loops  []ast.Node
}

var topFrame Frame

// refText is the text of a named constant used as a query argument.
func (c *Package) refText(arg ast.Expr) *sqltext.Text {
	id := Ident(ast.Unparen(arg))
	v, ok := c.ConstString(arg)
	if id == nil || !ok {
		return nil
	}
	var b sqltext.Builder
	b.Opaque(v, arg)
	t := b.Text()
	t.Node, t.Known, t.Ref, t.Const = arg, true, true, c.Pass.TypesInfo.Uses[id]
	if t.Const == nil {
		return nil
	}
	return t
}

// declared returns the constant or variable whose declaration holds the
// expression on top of the stack.
func (c *Package) declared(stack []ast.Node) types.Object {
	for i := len(stack) - 2; i >= 0; i-- {
		spec, ok := stack[i].(*ast.ValueSpec)
		if !ok {
			continue
		}
		for j, v := range spec.Values {
			if j < len(spec.Names) && v == stack[i+1] {
				return c.Pass.TypesInfo.Defs[spec.Names[j]]
			}
		}
		return nil
	}
	return nil
}

func (c *Package) isStringExpr(e ast.Expr) bool {
	tv, ok := c.Pass.TypesInfo.Types[e]
	if !ok || tv.Type == nil {
		return false
	}
	b, ok := tv.Type.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// isOperand reports whether the expression on top of the stack is an
// operand of a string concatenation, which is checked as a whole.
//
// A text compared with another (stmt == "SAVEPOINT x", a case of a switch
// on a statement: a fake executor's) is no text either: it is never run.
func (c *Package) isOperand(stack []ast.Node) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.ParenExpr:
			continue
		case *ast.BinaryExpr:
			return p.Op == token.ADD && c.isStringExpr(p) || p.Op == token.EQL || p.Op == token.NEQ
		case *ast.CaseClause:
			return true // in its list: a case's body holds statements, not expressions
		}
		return false
	}
	return false
}

// isQueryArg reports whether the expression is the SQL argument of a known
// query call (collected from the call itself).
func (c *Package) isQueryArg(stack []ast.Node) bool {
	if len(stack) < 2 {
		return false
	}
	call, ok := stack[len(stack)-2].(*ast.CallExpr)
	return ok && queryArg(c.Pass.TypesInfo, call) == stack[len(stack)-1]
}

// isMessage reports whether the expression is an argument of a print, log
// or error call: a message, not SQL.
func (c *Package) isMessage(stack []ast.Node) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.ParenExpr:
			continue
		case *ast.BinaryExpr:
			continue
		case *ast.CallExpr:
			return isMessageCall(c.Pass.TypesInfo, p)
		}
		return false
	}
	return false
}

// Ident returns the identifier of a named constant reference (x or pkg.x).
func Ident(e ast.Expr) *ast.Ident {
	switch e := e.(type) {
	case *ast.Ident:
		return e
	case *ast.SelectorExpr:
		return e.Sel
	}
	return nil
}

// textOf builds the Text of a string expression: a literal, a constant
// concatenation, or a concatenation with non-constant operands (written as
// %s holes). It returns nil for expressions with no literal part.
func (c *Package) textOf(e ast.Expr) *sqltext.Text { return c.textWithTail(e, nil) }

// builderPiece returns the call that writes the node on top of stack
// into a builder (b.WriteString("DELETE FROM orgs")), or nil: more of
// the statement may follow it there (a helper's " WHERE ...").
func builderPiece(stack []ast.Node) *ast.CallExpr {
	if len(stack) < 2 {
		return nil
	}
	call, ok := stack[len(stack)-2].(*ast.CallExpr)
	if !ok || len(call.Args) != 1 || call.Args[0] != stack[len(stack)-1] {
		return nil
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "WriteString" {
		return call
	}
	return nil
}

// textWithTail is textOf, followed, when tail is not nil, by a hole that
// stands for what the code writes after it.
func (c *Package) textWithTail(e ast.Expr, tail *ast.CallExpr) *sqltext.Text {
	var b sqltext.Builder
	var origins [][2]token.Pos // what the opaque pieces were written as
	var consts []types.Object
	literals := 0
	ok := true
	var add func(e ast.Expr)
	add = func(e ast.Expr) {
		if !ok {
			return
		}
		switch x := e.(type) {
		case *ast.ParenExpr:
			add(x.X)
			return
		case *ast.BasicLit:
			if x.Kind == token.STRING {
				if !b.Literal(x) {
					ok = false
				}
				literals++
				return
			}
		case *ast.BinaryExpr:
			if x.Op == token.ADD && c.isStringExpr(x) {
				add(x.X)
				add(x.Y)
				return
			}
		}
		if v, ok := c.ConstString(e); ok {
			b.Opaque(v, e)
			if k, isConst := c.Pass.TypesInfo.Uses[Ident(e)].(*types.Const); isConst {
				consts = append(consts, k)
			}
			return
		}
		if v, r, ok := c.constResult(e); ok {
			b.Opaque(v, e) // d.ForUpdate(): the clause a dialect returns
			origins = append(origins, [2]token.Pos{r.Pos(), r.End()})
			return
		}
		if v, r, ok := c.fixedVar(e); ok {
			b.Opaque(v, e) // schema + "." + recordsTable
			origins = append(origins, [2]token.Pos{r.Pos(), r.End()})
			return
		}
		b.Opaque("%s", e) // a hole: normalised like a printf verb
	}
	add(e)
	if !ok || literals == 0 {
		return nil
	}
	if v, ok := c.ConstString(e); ok && v != b.String() {
		return nil // the builder disagrees with the type checker; trust neither
	}
	if tail != nil {
		b.Opaque("%s", tail)
	}
	t := b.Text()
	t.Node, t.Origins, t.Consts = e, origins, consts
	return t
}

// noteRangedList records the variable of a range over a list (for _, q
// := range []string{...}, or a variable such a literal initialises): it
// runs each element in turn, and the first stands for them
// (rangedElem). A variable is resolved when the text is asked for: a
// package's list may be declared after the function that ranges over it.
func (c *Package) noteRangedList(r *ast.RangeStmt) {
	id, ok := r.Value.(*ast.Ident)
	if !ok || r.Tok != token.DEFINE {
		return
	}
	switch x := ast.Unparen(r.X).(type) {
	case *ast.CompositeLit:
		if len(x.Elts) == 0 {
			return
		}
	case *ast.Ident:
	default:
		return
	}
	if obj := c.Pass.TypesInfo.Defs[id]; obj != nil {
		if c.ranged == nil {
			c.ranged = map[types.Object]ast.Expr{}
		}
		c.ranged[obj] = ast.Unparen(r.X)
	}
}

// rangedElem returns the element that stands for those of a ranged list
// (noteRangedList): its first, when the list is a literal, a local
// variable defined once from one, or an unexported package variable
// nothing changes.
func (c *Package) rangedElem(obj types.Object) (ast.Expr, bool) {
	x, ok := c.ranged[obj]
	if !ok {
		return nil, false
	}
	lit := c.ListOf(x)
	if lit == nil || len(lit.Elts) == 0 {
		return nil, false
	}
	if _, keyed := lit.Elts[0].(*ast.KeyValueExpr); keyed {
		return nil, false
	}
	return lit.Elts[0], true
}

// ListOf returns the list literal a range ranges over: written there, or
// the value of a local variable defined once from one, or of an
// unexported package variable nothing changes. nil when not known.
func (c *Package) ListOf(x ast.Expr) *ast.CompositeLit {
	x = ast.Unparen(x)
	if id, isIdent := x.(*ast.Ident); isIdent {
		v, isVar := c.Pass.TypesInfo.Uses[id].(*types.Var)
		if !isVar || v.Pkg() != c.Pass.Pkg {
			return nil
		}
		if v.Parent() == c.Pass.Pkg.Scope() && (v.Exported() || c.changedVars()[v]) {
			return nil
		}
		x = ast.Unparen(c.Defs[v])
	}
	lit, _ := x.(*ast.CompositeLit)
	return lit
}

// fixedVar returns the value of the unexported package variable e names
// when a constant string initialises it and nothing in the package
// assigns it or takes its address (`var recordsTable = "records"`): it
// is as fixed as a constant. The initialiser is returned too.
func (c *Package) fixedVar(e ast.Expr) (string, ast.Expr, bool) {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return "", nil, false
	}
	v, ok := c.Pass.TypesInfo.Uses[id].(*types.Var)
	if !ok || v.Exported() || v.Pkg() != c.Pass.Pkg || v.Parent() != c.Pass.Pkg.Scope() {
		return "", nil, false
	}
	init := c.Defs[v]
	if init == nil {
		return "", nil, false
	}
	s, ok := c.ConstString(init)
	if !ok || c.changedVars()[v] {
		return "", nil, false
	}
	return s, init, true
}

// changedVars are the package variables the package's code assigns,
// steps or takes the address of (flag.StringVar(&table, ...)): found
// once, and only for a text that names a package variable.
func (c *Package) changedVars() map[*types.Var]bool {
	if c.changed != nil {
		return c.changed
	}
	c.changed = map[*types.Var]bool{}
	info := c.Pass.TypesInfo
	mark := func(e ast.Expr) {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok && v.Parent() == c.Pass.Pkg.Scope() {
				c.changed[v] = true
			}
		}
	}
	for _, f := range c.Pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					mark(l)
				}
			case *ast.IncDecStmt:
				mark(n.X)
			case *ast.RangeStmt:
				if n.Tok == token.ASSIGN {
					mark(n.Key)
					if n.Value != nil {
						mark(n.Value)
					}
				}
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					mark(n.X)
				}
			}
			return true
		})
	}
	return c.changed
}

// ConstString returns e's value where the type checker folds it to a
// constant string.
func (c *Package) ConstString(e ast.Expr) (string, bool) {
	tv, ok := c.Pass.TypesInfo.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// constResult returns what a call of the package's own function, or of
// an interface method the package's types implement, returns when every
// return of it is a constant string: the longest of them, the fullest
// variant (" FOR UPDATE" over the "" of a dialect that locks nothing),
// and the expression that returns it.
func (c *Package) constResult(e ast.Expr) (string, ast.Expr, bool) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return "", nil, false
	}
	fn, _, ok := CalleeOf(c.Pass.TypesInfo, call)
	if !ok {
		return "", nil, false
	}
	if c.constReturns == nil {
		c.constReturns = map[*types.Func][]ast.Expr{}
	}
	rets, seen := c.constReturns[fn]
	if !seen {
		rets = c.returnedConsts(fn)
		c.constReturns[fn] = rets
	}
	var best string
	var at ast.Expr
	for _, r := range rets {
		if v, _ := c.ConstString(r); at == nil || len(v) > len(best) {
			best, at = v, r
		}
	}
	return best, at, at != nil
}

// returnedConsts lists the constant strings fn returns — for an
// interface method, the package's implementations do — or nil when some
// return is not a constant.
func (c *Package) returnedConsts(fn *types.Func) []ast.Expr {
	var decls []*ast.FuncDecl
	if fd := c.Funcs[fn]; fd != nil {
		decls = append(decls, fd)
	} else if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		it, ok := sig.Recv().Type().Underlying().(*types.Interface)
		if !ok {
			return nil
		}
		for _, ptr := range c.PointerTypes() {
			if !types.Implements(ptr, it) {
				continue
			}
			obj, _, _ := types.LookupFieldOrMethod(ptr, true, fn.Pkg(), fn.Name())
			if m, ok := obj.(*types.Func); ok && c.Funcs[m] != nil {
				decls = append(decls, c.Funcs[m])
			}
		}
	}
	var out []ast.Expr
	for _, fd := range decls {
		ok := true
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				if len(n.Results) != 1 {
					ok = false
				} else if _, isConst := c.ConstString(n.Results[0]); isConst {
					out = append(out, n.Results[0])
				} else {
					ok = false
				}
			}
			return ok
		})
		if !ok {
			return nil
		}
	}
	return out
}

// FieldFuncs maps the function-typed struct fields of the package's types
// to the functions and method values the package assigns them (s.runFn =
// s.run, &store{runFn: run}), made once.
func (c *Package) FieldFuncs() map[*types.Var][]*types.Func {
	if c.fields != nil {
		return c.fields
	}
	c.fields = map[*types.Var][]*types.Func{}
	info := c.Pass.TypesInfo
	add := func(lhs, rhs ast.Expr) {
		var field *types.Var
		switch l := ast.Unparen(lhs).(type) {
		case *ast.SelectorExpr:
			field, _ = info.Uses[l.Sel].(*types.Var)
		case *ast.Ident:
			field, _ = info.Uses[l].(*types.Var)
		}
		if field == nil || !field.IsField() {
			return
		}
		var fn *types.Func
		switch r := ast.Unparen(rhs).(type) {
		case *ast.SelectorExpr:
			fn, _ = info.Uses[r.Sel].(*types.Func)
		case *ast.Ident:
			fn, _ = info.Uses[r].(*types.Func)
		}
		if fn != nil && !slices.Contains(c.fields[field], fn) {
			c.fields[field] = append(c.fields[field], fn)
		}
	}
	for _, f := range c.Pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if len(n.Lhs) == len(n.Rhs) {
					for i := range n.Lhs {
						add(n.Lhs[i], n.Rhs[i])
					}
				}
			case *ast.KeyValueExpr:
				add(n.Key, n.Value)
			}
			return true
		})
	}
	return c.fields
}

// std reports a package of the standard library, by its first path
// element: a GOPATH package's path has no dot either.
func std(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return stdRoots[first]
}

var stdRoots = map[string]bool{}

func init() {
	for _, r := range strings.Fields(`archive bufio bytes cmp compress container context crypto database debug
		embed encoding errors expvar flag fmt go hash html image index internal io iter log maps math mime net
		os path reflect regexp runtime slices sort strconv strings structs sync syscall testing text time
		unicode unique unsafe weak`) {
		stdRoots[r] = true
	}
}

// flowReads says whether the transaction flow reads a call: a call of
// the standard library that is no database call and is handed no
// function runs no transaction, nor does a builtin or a conversion; a
// call of a function value (a variable, a field, a literal called in
// place) may.
func flowReads(callee types.Object, ok bool, fn *types.Func, call *ast.CallExpr, info *types.Info) bool {
	if ok {
		return !std(fn.Pkg().Path()) || DbPackages[fn.Pkg().Path()] || takesFunc(info, call)
	}
	if _, isVar := callee.(*types.Var); isVar {
		return true
	}
	if _, isLit := ast.Unparen(call.Fun).(*ast.FuncLit); isLit {
		return true
	}
	return takesFunc(info, call)
}

// takesFunc reports a call with an argument of function type.
func takesFunc(info *types.Info, call *ast.CallExpr) bool {
	for _, a := range call.Args {
		if _, ok := info.TypeOf(a).(*types.Signature); ok {
			return true
		}
	}
	return false
}
