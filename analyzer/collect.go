package analyzer

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/dsqllint/dsqllint/sqlparse"
	"github.com/dsqllint/dsqllint/txflow"
)

// collect finds the candidate SQL texts of the package's Go files, in
// source order, and records the calls each function makes to the package's
// own functions.
func (c *checker) collect() []*Text {
	info := c.pass.TypesInfo
	c.defs = map[types.Object]ast.Expr{}
	for _, f := range c.pass.Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if fn, ok := info.Defs[d.Name].(*types.Func); ok && d.Body != nil {
					c.funcs[fn] = d
				}
			case *ast.GenDecl:
				// Package variables first: a retry loop may check an error
				// value declared further down (errConflict = ...).
				for _, sp := range d.Specs {
					if vs, ok := sp.(*ast.ValueSpec); ok && len(vs.Names) == 1 && len(vs.Values) == 1 {
						if obj := info.Defs[vs.Names[0]]; obj != nil {
							c.defs[obj] = vs.Values[0]
						}
					}
				}
			}
		}
	}
	c.calls = map[ast.Node][]localCall{}
	c.uses = map[types.Object][]*Text{}
	c.results = map[types.Object]ast.Expr{}
	c.appends = map[types.Object][]string{}
	c.appendOrigins = map[types.Object][][2]token.Pos{}
	c.builderSteps = map[types.Object][]ast.Expr{}
	c.loops = map[ast.Node]bool{}
	c.helpers = map[*ast.FuncDecl]bool{}
	c.nonSQL = map[types.Object]bool{}
	c.sprintfs = map[*ast.BasicLit]*ast.CallExpr{}
	db := reachesDB(c.pass.Pkg)
	c.db = db
	var texts []*Text
	for _, f := range c.pass.Files {
		c.directives = append(c.directives, goDirectives(c.pass.Fset, f)...)
		var stack []ast.Node
		// sites[i] is where stack[i] sits, kept beside the stack so that
		// no node pays for a search.
		var sites []Site
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack, sites = stack[:len(stack)-1], sites[:len(sites)-1]
				return true
			}
			var at Site
			if len(stack) > 0 {
				at = sites[len(sites)-1]
				switch p := stack[len(stack)-1].(type) {
				case *ast.FuncDecl:
					at = Site{Scope: p}
				case *ast.FuncLit:
					at = Site{Scope: p}
					if len(stack) > 1 {
						at.Handed, _ = stack[len(stack)-2].(*ast.CallExpr)
					}
				case *ast.ForStmt:
					at.Loops = append([]ast.Node{p.Body}, at.Loops...)
				case *ast.RangeStmt:
					at.Loops = append([]ast.Node{p.Body}, at.Loops...)
				}
				at.Parent = stack[len(stack)-1]
			}
			stack, sites = append(stack, n), append(sites, at)
			scope := at.Scope
			switch n := n.(type) {
			case *ast.CallExpr:
				fn, key, ok := calleeOf(info, n)
				var arg ast.Expr
				if ok {
					shift := 0
					if d, sh, isDBTX := dbtxCallee(fn); isDBTX {
						key, shift = d, sh // a query method of an interface or a wrapper
					}
					if nonSQLClient(fn.Pkg().Path()) {
						c.markNonSQLArgs(n)
					}
					if fd := c.funcs[fn]; fd != nil && scope != nil {
						c.calls[scope] = append(c.calls[scope], localCall{fd, n, at})
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
					if v, isVar := typeutil.Callee(info, n).(*types.Var); isVar {
						// s.runFn(...), a field the package sets to a method
						// value (s.runFn = s.run, for tests to replace): a call
						// of what it holds.
						for _, fn := range c.fieldFuncs()[v] {
							if fd := c.funcs[fn]; fd != nil {
								c.calls[scope] = append(c.calls[scope], localCall{fd, n, at})
							}
						}
					}
				}
				c.flowSites = append(c.flowSites, flowSite{n, at, fn, key, ok})
				if arg != nil {
					t := c.textOf(arg)
					if t != nil {
						t.Known, t.Scope = true, scope
						texts = append(texts, t)
					} else if t = c.refText(arg); t != nil {
						t.Scope = scope
						texts = append(texts, t)
						c.uses[t.Const] = append(c.uses[t.Const], t)
					} else if t = c.indirectText(arg); t != nil {
						t.Scope = scope
						texts = append(texts, t)
					}
					c.queries = append(c.queries, &queryCall{call: n, key: key, text: t, Site: at, arg: arg})
				}
			case *ast.CompositeLit:
				if db {
					c.flowSites = append(c.flowSites, flowSite{node: n, site: at})
				}
			case *ast.FuncLit:
				if scope != nil {
					switch at.Parent.(type) {
					case *ast.AssignStmt, *ast.ValueSpec:
						c.flowSites = append(c.flowSites, flowSite{node: n, site: at})
					}
				}
			case *ast.AssignStmt:
				if db {
					c.observeAssign(n)
					c.flowSites = append(c.flowSites, flowSite{node: n, site: at})
				}
			case *ast.ValueSpec:
				if db && len(n.Names) == 1 && len(n.Values) == 1 {
					if obj := info.Defs[n.Names[0]]; obj != nil {
						c.defs[obj] = n.Values[0]
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
					if val, _, ok := decodeLiteral(lit.Value); !ok || !sqlparse.LooksLikeSQL(val) {
						return true
					}
				}
				if bin, ok := n.(*ast.BinaryExpr); ok && bin.Op != token.ADD {
					return true
				}
				if !c.isStringExpr(n.(ast.Expr)) || c.isOperand(stack) || c.isQueryArg(stack) || c.isMessage(stack) || c.nonSQLArg(stack) {
					return true
				}
				if t := c.textOf(n.(ast.Expr)); t != nil {
					t.Scope = scope
					t.Const = c.declared(stack)
					texts = append(texts, t)
					// Inspect makes no closing call when we return false.
					stack, sites = stack[:len(stack)-1], sites[:len(sites)-1]
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

// Site is where a node sits: the function around it (nil at package
// level), the node holding it, and what may run it again — the bodies of
// the loops around it in its function, innermost first, and the call the
// function literal around it is handed to.
type Site struct {
	Scope, Parent ast.Node
	Handed        *ast.CallExpr
	Loops         []ast.Node
}

// flowSite is a node the transaction flow reads (observeSites), where it
// sits, and for a call its callee.
type flowSite struct {
	node ast.Node
	site Site
	fn   *types.Func
	key  callee
	ok   bool
}

// observeSites records, in source order, what the transaction flow needs
// of the calls, literals and assignments the walk met.
func (c *checker) observeSites() {
	info := c.pass.TypesInfo
	for i := range c.flowSites {
		fs := &c.flowSites[i]
		at, scope := fs.site, fs.site.Scope
		switch n := fs.node.(type) {
		case *ast.CallExpr:
			if fn := fs.fn; fs.ok {
				// Calls of module functions are recorded in every package:
				// a package that reaches no database may still call, or
				// retry, one that does (through an interface).
				module := c.funcs[fn] != nil || c.inModule(fn) || ownInterfaceMethod(fn, c.pass.Pkg)
				if scope != nil {
					closure, loops := c.retryContext(at)
					if c.inModule(fn) || ownInterfaceMethod(fn, c.pass.Pkg) {
						c.outCalls = append(c.outCalls, outCall{scope, n, at.Parent, c.key(fn), closure, loops, isInterfaceMethod(fn)})
					}
					if module {
						// A configured retry function (-retry-funcs) re-runs what it is
						// handed, whatever its summary shows.
						c.noteFuncArgs(n, c.key(fn), scope, closure || c.settings.RetryFuncs.Has(fn), loops)
					} else {
						c.noteHandedOver(n, scope, closure || c.settings.RetryFuncs.Has(fn), loops)
					}
				}
				if c.settings.RetryFuncs.Has(fn) {
					c.retrySites = append(c.retrySites, txflow.Retry{Pos: n.Pos()})
				}
				if c.db {
					c.observeCall(n, fn, fs.key, at)
				}
			} else if scope != nil {
				closure, loops := c.retryContext(at)
				switch f := typeutil.Callee(info, n).(type) {
				case *types.Var:
					c.varCalls = append(c.varCalls, varCall{scope, n, f, closure, loops})
					for _, fn := range c.fieldFuncs()[f] {
						c.noteFuncArgs(n, c.key(fn), scope, closure, loops)
					}
				case nil:
					if lit, isLit := ast.Unparen(n.Fun).(*ast.FuncLit); isLit {
						// func() { ... }(), go func() { ... }(): run here.
						c.implicit = append(c.implicit, implicitCall{scope, litKey(lit), lit.Pos(), closure, loops})
					}
				}
			}
		case *ast.CompositeLit:
			c.observeLiteral(n, scope)
		case *ast.FuncLit:
			// f := func() { ... }: called where it is made, as far as
			// anyone can tell.
			closure, loops := c.retryContext(at)
			c.implicit = append(c.implicit, implicitCall{scope, litKey(n), n.Pos(), closure, loops})
		case *ast.AssignStmt:
			c.noteCallAssign(n, at)
		}
	}
}

// refText is the text of a named constant used as a query argument.
func (c *checker) refText(arg ast.Expr) *Text {
	id := ident(ast.Unparen(arg))
	v := c.constString(arg)
	if id == nil || v == nil {
		return nil
	}
	var b textBuilder
	b.opaque(*v, arg)
	t := b.text()
	t.Node, t.Known, t.Ref, t.Const = arg, true, true, c.pass.TypesInfo.Uses[id]
	if t.Const == nil {
		return nil
	}
	return t
}

// declared returns the constant or variable whose declaration holds the
// expression on top of the stack.
func (c *checker) declared(stack []ast.Node) types.Object {
	for i := len(stack) - 2; i >= 0; i-- {
		spec, ok := stack[i].(*ast.ValueSpec)
		if !ok {
			continue
		}
		for j, v := range spec.Values {
			if j < len(spec.Names) && v == stack[i+1] {
				return c.pass.TypesInfo.Defs[spec.Names[j]]
			}
		}
		return nil
	}
	return nil
}

func (c *checker) isStringExpr(e ast.Expr) bool {
	tv, ok := c.pass.TypesInfo.Types[e]
	if !ok || tv.Type == nil {
		return false
	}
	b, ok := tv.Type.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// isOperand reports whether the expression on top of the stack is an
// operand of a string concatenation, which is checked as a whole.
func (c *checker) isOperand(stack []ast.Node) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.ParenExpr:
			continue
		case *ast.BinaryExpr:
			return p.Op == token.ADD && c.isStringExpr(p)
		}
		return false
	}
	return false
}

// isQueryArg reports whether the expression is the SQL argument of a known
// query call (collected from the call itself).
func (c *checker) isQueryArg(stack []ast.Node) bool {
	if len(stack) < 2 {
		return false
	}
	call, ok := stack[len(stack)-2].(*ast.CallExpr)
	return ok && queryArg(c.pass.TypesInfo, call) == stack[len(stack)-1]
}

// isMessage reports whether the expression is an argument of a print, log
// or error call: a message, not SQL.
func (c *checker) isMessage(stack []ast.Node) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.ParenExpr:
			continue
		case *ast.BinaryExpr:
			continue
		case *ast.CallExpr:
			return isMessageCall(c.pass.TypesInfo, p)
		}
		return false
	}
	return false
}

// ident returns the identifier of a named constant reference (x or pkg.x).
func ident(e ast.Expr) *ast.Ident {
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
func (c *checker) textOf(e ast.Expr) *Text {
	var b textBuilder
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
				if !b.literal(x) {
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
		if v := c.constString(e); v != nil {
			b.opaque(*v, e)
			if k, isConst := c.pass.TypesInfo.Uses[ident(e)].(*types.Const); isConst {
				consts = append(consts, k)
			}
			return
		}
		if v, r, ok := c.constResult(e); ok {
			b.opaque(v, e) // d.ForUpdate(): the clause a dialect returns
			origins = append(origins, [2]token.Pos{r.Pos(), r.End()})
			return
		}
		b.opaque("%s", e) // a hole: normalised like a printf verb
	}
	add(e)
	if !ok || literals == 0 {
		return nil
	}
	t := b.text()
	t.Node, t.origins, t.consts = e, origins, consts
	if v := c.constString(e); v != nil && *v != t.SQL {
		return nil // the builder disagrees with the type checker; trust neither
	}
	return t
}

func (c *checker) constString(e ast.Expr) *string {
	tv, ok := c.pass.TypesInfo.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return nil
	}
	s := constant.StringVal(tv.Value)
	return &s
}

// constResult returns what a call of the package's own function, or of
// an interface method the package's types implement, returns when every
// return of it is a constant string: the longest of them, the fullest
// variant (" FOR UPDATE" over the "" of a dialect that locks nothing),
// and the expression that returns it.
func (c *checker) constResult(e ast.Expr) (string, ast.Expr, bool) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return "", nil, false
	}
	fn, _, ok := calleeOf(c.pass.TypesInfo, call)
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
		if v := *c.constString(r); at == nil || len(v) > len(best) {
			best, at = v, r
		}
	}
	return best, at, at != nil
}

// returnedConsts lists the constant strings fn returns — for an
// interface method, the package's implementations do — or nil when some
// return is not a constant.
func (c *checker) returnedConsts(fn *types.Func) []ast.Expr {
	var decls []*ast.FuncDecl
	if fd := c.funcs[fn]; fd != nil {
		decls = append(decls, fd)
	} else if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		it, ok := sig.Recv().Type().Underlying().(*types.Interface)
		if !ok {
			return nil
		}
		for _, ptr := range pointerTypes(c.pass.Pkg) {
			if !types.Implements(ptr, it) {
				continue
			}
			obj, _, _ := types.LookupFieldOrMethod(ptr, true, fn.Pkg(), fn.Name())
			if m, ok := obj.(*types.Func); ok && c.funcs[m] != nil {
				decls = append(decls, c.funcs[m])
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
				} else if v := c.constString(n.Results[0]); v != nil {
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

// fieldFuncs maps the function-typed struct fields of the package's types
// to the functions and method values the package assigns them (s.runFn =
// s.run, &store{runFn: run}), made once.
func (c *checker) fieldFuncs() map[*types.Var][]*types.Func {
	if c.fields != nil {
		return c.fields
	}
	c.fields = map[*types.Var][]*types.Func{}
	info := c.pass.TypesInfo
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
	for _, f := range c.pass.Files {
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
