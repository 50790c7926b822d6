package txcheck

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"

	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/internal/growbuf"
	"github.com/dsqllint/dsqllint/modconf"
	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
	"github.com/dsqllint/dsqllint/sqltext"
	"github.com/dsqllint/dsqllint/txflow"
)

// scopeFunc describes a function scope: its key, its type, and its
// receiver's variable.
func (c *checker) scopeFunc(scope ast.Node) (key string, ft *ast.FuncType, recv types.Object) {
	switch s := scope.(type) {
	case *ast.FuncDecl:
		fn, _ := c.Pass.TypesInfo.Defs[s.Name].(*types.Func)
		if fn == nil {
			return "", nil, nil
		}
		if s.Recv != nil && len(s.Recv.List) > 0 && len(s.Recv.List[0].Names) > 0 {
			recv = c.Pass.TypesInfo.Defs[s.Recv.List[0].Names[0]]
		}
		return c.Key(fn), s.Type, recv
	case *ast.FuncLit:
		return gosql.LitKey(s), s.Type, nil
	}
	return "", nil, nil
}

// handleOf says what a handle expression is in a function: the index of a
// parameter, txflow.ReceiverArg for the receiver or one of its fields, or
// txflow.NoHandle.
func handleOf(info *types.Info, ft *ast.FuncType, recv types.Object, x ast.Expr) int {
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		obj := info.Uses[x]
		if obj != nil && obj == recv {
			return txflow.ReceiverArg
		}
		if i := paramIndex(info, ft, obj); i >= 0 {
			return i
		}
	case *ast.SelectorExpr:
		if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && recv != nil && info.Uses[id] == recv {
			return txflow.ReceiverArg // q.db: the handle the value holds
		}
	}
	return txflow.NoHandle
}

// summarize builds the package's Summary from what collect and flow saw.
func (c *checker) summarize(scripts map[*sqltext.Text]*sqlparse.Script, parsed []*gosql.Parsed) *txflow.Summary {
	cfg := c.Settings.Cfg
	s := &txflow.Summary{Pkg: c.Pass.Pkg.Path(), Enabled: cfg.Enabled("DSQL005"), CASEnabled: cfg.Enabled("DSQL004"), FenceEnabled: cfg.Enabled("DSQL003")}
	if c.Pass.Module != nil {
		s.Module = c.Pass.Module.Path
	}
	c.summarizeStmts(s, scripts)
	if c.Pass.Module != nil {
		c.summarizeInterfaces(s) // a store may implement them without importing the package
	}
	if !c.DB && len(c.outCalls) == 0 {
		// Neither a database nor another package of the module in sight
		// (most of the standard library): only the lock texts it holds,
		// and its retry helpers and predicates (a retry package that
		// checks for 40001 by the error's text imports no driver).
		c.summarizeLocks(s, scripts, parsed, nil, nil)
		c.summarizeRetries(s)
		return s
	}
	begins, scopes := c.summarizeBegins(s)
	c.summarizeRepeatable(s)
	bound := c.summarizePasses(s, begins, scopes)
	c.summarizeClosures(s)
	c.summarizeCalls(s)
	c.summarizeLocks(s, scripts, parsed, begins, bound)
	c.summarizeCAS(s, scripts)
	c.summarizeImpls(s)
	c.summarizeRetries(s)
	return s
}

// summarizeRetries records the package's retry constructs: its retry
// helpers, the loops that check for 40001 around what the summary
// records, the calls of configured retry functions.
func (c *checker) summarizeRetries(s *txflow.Summary) {
	for fn, fd := range c.Funcs {
		if c.retryHelper(fn) && !c.InTest(fd.Pos()) {
			s.Retries = append(s.Retries, txflow.Retry{Pos: fd.Pos(), Helper: c.Key(fn)})
		}
	}
	for _, r := range c.retrySites {
		if !c.InTest(r.Pos) { // a test's retries cover no production lock
			s.Retries = append(s.Retries, r)
		}
	}
	// What the module stage decides: the loops that leave the check to a
	// predicate of another package, and the package's predicates.
	for body, preds := range c.loopPreds {
		if !c.InTest(body.Pos()) {
			s.Loops = append(s.Loops, txflow.Loop{Pos: body.Pos(), Preds: preds})
		}
	}
	sort.Slice(s.Loops, func(i, j int) bool { return s.Loops[i].Pos < s.Loops[j].Pos })
	for fn, fd := range c.Funcs {
		if !isPredicate(fn) {
			continue
		}
		if c.checksConflict(fd.Body, 2, nil) {
			s.Predicates = append(s.Predicates, c.Key(fn))
		} else if !c.InTest(fd.Pos()) {
			c.messageOnlyConflict(fd.Body)
		}
	}
	for _, key := range c.sentinels() {
		s.Predicates = append(s.Predicates, key) // a loop of another package tests for them as for a predicate
	}
	sort.Strings(s.Predicates)
	sort.Slice(s.Retries, func(i, j int) bool { return s.Retries[i].Pos < s.Retries[j].Pos })
}

// summarizeCalls records every call of a module function, of a function
// parameter, and of the closures handed to code outside the module, with
// the retry around it.
func (c *checker) summarizeCalls(s *txflow.Summary) {
	add := func(scope ast.Node, callee string, pos token.Pos, closure bool, loops []ast.Node, dynamic bool) {
		from, _, _ := c.scopeFunc(scope)
		if from == "" || callee == "" {
			return
		}
		s.Calls = append(s.Calls, txflow.Call{From: from, Callee: callee, Pos: pos, Test: c.InTest(pos),
			Retried: closure || c.anyMentionsRetry(loops), Loop: c.pendingLoop(loops), Dynamic: dynamic})
	}
	for scope, calls := range c.Calls {
		for _, lc := range calls {
			if fn, ok := c.Pass.TypesInfo.Defs[lc.Fn.Name].(*types.Func); ok {
				closure, loops := c.retryContext(lc.Site)
				add(scope, c.Key(fn), lc.Call.Pos(), closure, loops, false)
			}
		}
	}
	for _, oc := range c.outCalls {
		add(oc.scope, oc.callee, oc.call.Pos(), oc.closure, oc.loops, oc.iface)
	}
	for _, vc := range c.varCalls {
		if key, ok := c.paramFunc(vc.v); ok {
			add(vc.scope, key, vc.call.Pos(), vc.closure, vc.loops, false)
		}
	}
	for _, ic := range c.implicit {
		add(ic.scope, ic.fn, ic.pos, ic.closure, ic.loops, false)
	}
	sort.Slice(s.Calls, func(i, j int) bool {
		if s.Calls[i].Pos != s.Calls[j].Pos {
			return s.Calls[i].Pos < s.Calls[j].Pos
		}
		return s.Calls[i].Callee < s.Calls[j].Callee
	})
}

// summarizeStmts records the FOR UPDATE locks run on a parameter or the
// receiver — in sqlc's generated Go, at the lock in the query file — and
// the key-picked writes, on whatever handle.
func (c *checker) summarizeStmts(s *txflow.Summary, scripts map[*sqltext.Text]*sqlparse.Script) {
	info := c.Pass.TypesInfo
	cfg := c.Settings.Cfg
	sqlcLocks := c.sqlcLocks(scripts)
	s.Stmts = append(paramStmts.Get(), s.Stmts...)
	defer func() { s.Stmts = paramStmts.Keep(s.Stmts) }()
	for _, q := range c.Queries {
		sc := scripts[q.Text]
		if sc == nil {
			continue
		}
		key, ft, recv := c.scopeFunc(q.Scope)
		if key == "" {
			continue
		}
		handle := txflow.NoHandle
		if x := gosql.CallRecv(info, q.Call); x != nil {
			handle = handleOf(info, ft, recv, x)
		}
		for _, st := range sc.Stmts {
			var priors []rules.Prior
			if handle != txflow.NoHandle {
				priors = c.priorsOf(st, q.Text.Pos(st.Span.Start, false))
			}
			if handle != txflow.NoHandle && locksForUpdate(st) {
				ps := txflow.ParamStmt{Func: key, Param: handle, Pos: q.Call.Pos(), End: q.Call.End(), Lock: true, Priors: priors}
				for _, l := range st.Locks {
					if table, keys, ok := fencing.LockKeys(l); ok {
						ps.Table, ps.Keys = table, keys
					}
				}
				if c.Generated[c.FileOf(ps.Pos)] {
					sp, ok := sqlcLocks[sqlcName(sc.Text)]
					if !ok {
						continue
					}
					ps.Pos, ps.End = sp[0], sp[1]
				}
				ps.Quiet = c.SuppressedAt("DSQL005", ps.Pos, nil)
				s.Stmts = append(s.Stmts, ps)
				continue
			}
			table, keys, ok := fencing.WriteKeys(st)
			if !ok {
				if len(priors) > 0 {
					// An advisory lock, a FOR SHARE, an insert: what the
					// writes after it in the transaction rely on.
					s.Stmts = append(s.Stmts, txflow.ParamStmt{Func: key, Param: handle, Pos: q.Call.Pos(), End: q.Call.End(), Priors: priors})
				}
				continue
			}
			ps := txflow.ParamStmt{Func: key, Param: handle, Pos: q.Call.Pos(), End: q.Call.End(), Table: table, Keys: keys, Priors: priors}
			ps.CAS = rules.IsCASWrite(cfg, st)
			ps.Write = !ps.CAS
			ps.At = c.stmtAt(q.Text, st.Span.Start)
			s.Stmts = append(s.Stmts, ps)
		}
	}
}

// paramStmts lends a summary an array to grow its statements in.
var paramStmts growbuf.Pool[txflow.ParamStmt]

// stmtAt is where the statement at offset off of t is reported: in the
// text itself, in the declaration of the constant a query call runs, or,
// for sqlc's generated Go, in the query file sqlc read.
func (c *checker) stmtAt(t *sqltext.Text, off int) token.Pos {
	if name := sqlcName(t.SQL); name != "" && (t.Generated || c.Generated[c.FileOf(t.Pos(0, false))]) {
		if pos, ok := c.SqlcStmts[name]; ok {
			return pos
		}
	}
	if t.Ref && t.Const != nil {
		if d := c.ConstTexts[t.Const]; d != nil {
			return d.Pos(off, false)
		}
	}
	return t.Pos(off, false)
}

// textSpan is the source a text's findings are reported in: the text's
// own expression, or the declaration of the constant it names.
func (c *checker) textSpan(t *sqltext.Text) [2]token.Pos {
	if t.Ref && t.Const != nil {
		if def, ok := c.Defs[t.Const]; ok {
			return [2]token.Pos{def.Pos(), def.End()}
		}
		return [2]token.Pos{t.Const.Pos(), t.Const.Pos()}
	}
	if t.Node != nil {
		return [2]token.Pos{t.Node.Pos(), t.Node.End()}
	}
	return [2]token.Pos{t.Pos(0, false), t.Pos(len(t.SQL), true)}
}

// summarizeBegins records the Begins, those a function returns, and the
// transactions a helper of the module may have begun for the caller. It
// returns each transaction variable's Begin and the functions that hold
// one.
func (c *checker) summarizeBegins(s *txflow.Summary) (map[types.Object]int, map[ast.Node]bool) {
	info := c.Pass.TypesInfo
	begins := map[types.Object]int{}
	scopes := map[ast.Node]bool{}
	for _, b := range c.begins {
		key, _, _ := c.scopeFunc(b.scope)
		if key == "" {
			continue
		}
		begins[b.tx] = len(s.Begins)
		scopes[b.scope] = true
		begin := txflow.Begin{Func: key, Pos: b.call.Pos(), PGX: b.pgx, Retried: b.retried, Loop: b.loop}
		for _, sp := range c.serializable {
			if b.call.Pos() <= sp.pos && sp.pos < b.call.End() {
				begin.Serializable = c.Where(sp.pos)
			}
		}
		if !b.retried && s.Enabled && !c.Generated[c.FileOf(b.call.Pos())] {
			rw := c.fix.RewriteTx(b.scope, b.call, b.pgx)
			begin.Fix, begin.NoFix, begin.Needs = rw.Fix, rw.Why, rw.Needs
			if rw.Fix != nil && !c.fix.CanImport(rw.Pkg) {
				// Say what to add rather than break the build.
				begin.Fix, begin.NoFix = nil, "`go get "+rw.Pkg+"`, and -fix rewrites it"
			}
		}
		s.Begins = append(s.Begins, begin)
		fd, ok := b.scope.(*ast.FuncDecl)
		if !ok {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok {
				return false // a closure's return is not the function's
			}
			if r, ok := n.(*ast.ReturnStmt); ok {
				for k, res := range r.Results {
					if carries(info, res, b.tx) {
						s.Returns = append(s.Returns, txflow.Return{Func: key, Result: k, PGX: b.pgx})
					}
				}
			}
			return true
		})
	}
	obj := func(id *ast.Ident) types.Object { return info.ObjectOf(id) }
	for _, ca := range c.callAssigns {
		key, _, _ := c.scopeFunc(ca.scope)
		fn, _, ok := gosql.CalleeOf(info, ca.call)
		if key == "" || !ok {
			continue
		}
		for k, lhs := range ca.lhs {
			if _, known := begins[obj(lhs)]; known {
				continue // a Begin the package knows (a project's own BeginTx)
			}
			if obj := info.ObjectOf(lhs); obj != nil && mayHoldTx(obj.Type()) {
				begins[obj] = len(s.Begins)
				scopes[ca.scope] = true
				s.Begins = append(s.Begins, txflow.Begin{Func: key, Pos: ca.call.Pos(), Via: c.Key(fn), Result: k, Retried: ca.retried, Loop: ca.loop,
					NoFix: fn.Name() + " hands the transaction back for its caller to commit: the retry belongs around the caller's work, which no fix rewrites"})
			}
		}
	}
	return begins, scopes
}

// carries reports whether a returned expression is the transaction tx or
// a value made from it: newDB(h, tx), &repo{tx: tx}.
func carries(info *types.Info, e ast.Expr, tx types.Object) bool {
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && info.Uses[id] == tx
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return is(e)
	case *ast.UnaryExpr:
		return e.Op == token.AND && carries(info, e.X, tx)
	case *ast.CallExpr:
		return slices.ContainsFunc(e.Args, is)
	case *ast.CompositeLit:
		for _, elt := range e.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				elt = kv.Value
			}
			if is(elt) {
				return true
			}
		}
	}
	return false
}

// mayHoldTx reports a result type that can be a transaction or a value
// wrapping one: not a number, string, bool or error.
func mayHoldTx(t types.Type) bool {
	if t == nil || gosql.IsNamed(t, "context", "Context", false) {
		return false
	}
	if _, basic := t.Underlying().(*types.Basic); basic {
		return false
	}
	if _, fn := t.Underlying().(*types.Signature); fn {
		return false
	}
	return !gosql.IsError(t)
}

// summarizePasses records the calls that hand a parameter, the receiver,
// a begun transaction or a value made from one to another function, and
// the calls of function-typed parameters; it returns the values made from
// begun transactions (boundToBegins).
func (c *checker) summarizePasses(s *txflow.Summary, begins map[types.Object]int, scopes map[ast.Node]bool) map[any]int {
	info := c.Pass.TypesInfo
	bound := c.boundToBegins(begins, scopes)
	pass := func(scope ast.Node, callee string, call *ast.CallExpr, parent ast.Node, iface bool) {
		from, ft, recv := c.scopeFunc(scope)
		if from == "" {
			return
		}
		add := func(p txflow.Pass) {
			p.From, p.Callee, p.Pos = from, callee, call.Pos()
			s.Passes = append(s.Passes, p)
		}
		handle := func(x ast.Expr, arg int) {
			if arg >= 0 && !mayHoldTx(info.TypeOf(x)) {
				return // ctx, ids, names: no transaction travels in them
			}
			// A value made from a begun transaction first: WithTx(tx)
			// returns no transaction of its own.
			if b, ok := bound[boundKey(info, x)]; ok {
				add(txflow.Pass{Param: -1, Begin: b, Arg: arg})
				return
			}
			if id, ok := ast.Unparen(x).(*ast.Ident); ok {
				if b, ok := begins[info.Uses[id]]; ok {
					add(txflow.Pass{Param: -1, Begin: b, Arg: arg})
					return
				}
			}
			if h := handleOf(info, ft, recv, x); h != txflow.NoHandle {
				add(txflow.Pass{Param: h, Begin: -1, Arg: arg})
			} else if arg == txflow.ReceiverArg && iface {
				// A plugin's method called on a handle no transaction
				// made (m.DB.UpdateShards on the pool): what it writes
				// runs outside any transaction's locks.
				add(txflow.Pass{Param: txflow.NoHandle, Begin: -1, Arg: arg})
			}
		}
		// A method runs on its receiver: tx.WriteLockShards(ctx, f),
		// qtx := q.WithTx(tx); qtx.LockShard(ctx, id); and on the pool a
		// value was made from: sqlc.New(pool).LockShard(ctx, id).
		if x := gosql.CallRecv(info, call); x != nil {
			if pool, pgx := c.madeFromPool(x); pool {
				add(txflow.Pass{Param: txflow.NoHandle, Begin: -1, Arg: txflow.ReceiverArg, Pool: true, PGX: pgx})
			} else {
				handle(x, txflow.ReceiverArg)
			}
		}
		for j, arg := range call.Args {
			if pool, pgx := c.onPool(arg); pool {
				// A pool handed to a function that runs a statement on
				// it (sqlc's `q.ReadMessages(ctx, pool, ...)`): outside
				// any transaction.
				add(txflow.Pass{Param: txflow.NoHandle, Begin: -1, Arg: j, Pool: true, PGX: pgx})
				continue
			}
			switch ast.Unparen(arg).(type) {
			case *ast.Ident, *ast.SelectorExpr, *ast.CallExpr:
				handle(arg, j) // tx, s.tx, q.WithTx(tx)
			}
		}
	}
	for _, oc := range c.outCalls {
		pass(oc.scope, oc.callee, oc.call, oc.parent, oc.iface)
	}
	// The package's own functions: a transaction reaches a lock in another
	// package through a local helper too.
	for scope, calls := range c.Calls {
		for _, lc := range calls {
			if fn, ok := info.Defs[lc.Fn.Name].(*types.Func); ok {
				pass(scope, c.Key(fn), lc.Call, lc.Parent, false)
			}
		}
	}
	// f(tx), with f a function-typed parameter of the function or of one
	// around the closure that calls it: the functions callers pass.
	for _, vc := range c.varCalls {
		if key, ok := c.paramFunc(vc.v); ok {
			pass(vc.scope, key, vc.call, nil, false)
		}
		if vc.v.IsField() {
			for _, fn := range c.FieldFuncs()[vc.v] {
				if c.Funcs[fn] == nil { // (the package's own are among its calls)
					pass(vc.scope, c.Key(fn), vc.call, nil, false)
				}
			}
		}
	}
	return bound
}

// paramFunc returns the paramKey of a function-typed parameter.
func (c *checker) paramFunc(v types.Object) (string, bool) {
	if c.paramOwners == nil {
		c.paramOwners = map[types.Object]string{}
		for _, f := range c.Pass.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n.(type) {
				case *ast.FuncDecl, *ast.FuncLit:
					key, ft, _ := c.scopeFunc(n)
					if key == "" || ft.Params == nil {
						return true
					}
					i := 0
					for _, field := range ft.Params.List {
						for _, name := range field.Names {
							if obj := c.Pass.TypesInfo.Defs[name]; obj != nil {
								if _, ok := obj.Type().Underlying().(*types.Signature); ok {
									c.paramOwners[obj] = txflow.ParamKey(key, i)
								}
							}
							i++
						}
						if len(field.Names) == 0 {
							i++
						}
					}
				}
				return true
			})
		}
	}
	key, ok := c.paramOwners[v]
	return key, ok
}

// funcArg is a call of a module function whose arguments may be
// functions, and whether it runs in a retry (as outCall's fields).
type funcArg struct {
	scope   ast.Node
	call    *ast.CallExpr
	callee  string
	closure bool
	loops   []ast.Node
}

// varCall is a call of a function-typed variable v, with its retry
// context.
type varCall struct {
	scope   ast.Node
	call    *ast.CallExpr
	v       *types.Var
	closure bool
	loops   []ast.Node
}

// implicitCall is a function (a closure, a function or method value, a
// function parameter) that runs where it is handed to code outside the
// module, invoked, or assigned: as if called there, with that retry
// context.
type implicitCall struct {
	scope   ast.Node
	fn      string
	pos     token.Pos
	closure bool
	loops   []ast.Node
}

// noteFuncArgs records a call that passes a function literal, a function
// or method value, or a function-typed parameter.
func (c *checker) noteFuncArgs(call *ast.CallExpr, callee string, scope ast.Node, closure bool, loops []ast.Node) {
	for _, a := range call.Args {
		if _, ok := c.Pass.TypesInfo.TypeOf(a).(*types.Signature); ok {
			c.funcArgs = append(c.funcArgs, funcArg{scope, call, callee, closure, loops})
			return
		}
	}
}

// noteHandedOver records the functions a call hands to code outside the
// module (errgroup.Go, an ORM's Transaction, a retry function): they run
// inside that call. retried says the call re-runs them on 40001.
func (c *checker) noteHandedOver(call *ast.CallExpr, scope ast.Node, retried bool, loops []ast.Node) {
	for _, a := range call.Args {
		if _, ok := c.Pass.TypesInfo.TypeOf(a).(*types.Signature); !ok {
			continue
		}
		if fn := c.funcValue(a); fn != "" {
			c.implicit = append(c.implicit, implicitCall{scope, fn, a.Pos(), retried, loops})
		}
	}
}

// funcValue returns the key of the function an expression of function
// type holds: a function literal, a function or method value, a
// function-typed parameter; "" when it is none of these.
func (c *checker) funcValue(a ast.Expr) string {
	switch a := ast.Unparen(a).(type) {
	case *ast.FuncLit:
		return gosql.LitKey(a)
	case *ast.Ident, *ast.SelectorExpr:
		switch obj := c.Pass.TypesInfo.Uses[gosql.Ident(a)].(type) {
		case *types.Func:
			return c.Key(obj) // run, s.run
		case *types.Var:
			fn, _ := c.paramFunc(obj) // handed on
			return fn
		}
	}
	return ""
}

// summarizeClosures records the functions passed to module functions.
func (c *checker) summarizeClosures(s *txflow.Summary) {
	for _, fa := range c.funcArgs {
		from, _, _ := c.scopeFunc(fa.scope)
		for j, a := range fa.call.Args {
			if fn := c.funcValue(a); fn != "" && from != "" {
				s.Closures = append(s.Closures, txflow.Closure{From: from, Callee: fa.callee, Arg: j, Fn: fn, Pos: fa.call.Pos(),
					Retried: fa.closure || c.anyMentionsRetry(fa.loops), Loop: c.pendingLoop(fa.loops)})
			}
		}
	}
}

// summarizeImpls maps the methods of the module's interfaces — declared
// in this package or a module package it imports — to the methods of the
// package's types that implement them: a plugin registered in init is
// called through them. Only methods that run, pass on, begin or return
// something the module stage follows are worth mapping.
func (c *checker) summarizeImpls(s *txflow.Summary) {
	relevant := map[string]bool{}
	for _, st := range s.Stmts {
		relevant[st.Func] = true
	}
	for _, p := range s.Passes {
		relevant[p.From] = true
	}
	for _, r := range s.Returns {
		relevant[r.Func] = true
	}
	for _, r := range s.CASResults {
		relevant[r.Func] = true
	}
	for _, r := range s.Runs {
		relevant[r.Func] = true
	}
	for _, b := range s.Begins {
		relevant[b.Func] = true
	}
	// Matched across packages by method set (the module stage): the
	// methods that run, begin, pass on or return what it follows.
	c.summarizeTypes(s, relevant)
	// Matched here: also those that only call other module functions (a
	// service the API calls through an interface).
	for _, cl := range s.Calls {
		relevant[cl.From] = true
	}
	if len(relevant) == 0 {
		return
	}
	var byName map[string][]*types.Interface // the module's interfaces by their methods' names
	for _, ptr := range c.PointerTypes() {
		if !c.hasRelevantMethod(ptr, relevant) {
			continue
		}
		if byName == nil {
			byName = map[string][]*types.Interface{}
			for _, it := range c.moduleInterfaces(c.Pass.Pkg) {
				for i := range it.NumMethods() {
					byName[it.Method(i).Name()] = append(byName[it.Method(i).Name()], it)
				}
			}
		}
		// Only an interface with a method of a relevant name can map one.
		var ifaces []*types.Interface
		for _, fn := range c.methodsOf(ptr) {
			if !relevant[c.Key(fn)] {
				continue
			}
			for _, it := range byName[fn.Name()] {
				if !slices.Contains(ifaces, it) {
					ifaces = append(ifaces, it)
				}
			}
		}
		for _, it := range ifaces {
			if !types.Implements(ptr, it) {
				continue
			}
			for i := range it.NumMethods() {
				m := it.Method(i)
				obj, _, _ := types.LookupFieldOrMethod(ptr, true, m.Pkg(), m.Name())
				if impl, ok := obj.(*types.Func); ok && impl.Pkg() == c.Pass.Pkg && relevant[c.Key(impl)] {
					s.Impls = append(s.Impls, txflow.Impl{Iface: c.Key(m), Method: c.Key(impl)})
				}
			}
		}
	}
}

// summarizeInterfaces records the package's interfaces by their methods'
// names and signatures.
func (c *checker) summarizeInterfaces(s *txflow.Summary) {
	scope := c.Pass.Pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		if it, ok := tn.Type().Underlying().(*types.Interface); ok && it.NumMethods() > 0 {
			fns := make([]*types.Func, it.NumMethods())
			for i := range fns {
				fns[i] = it.Method(i)
			}
			s.Interfaces = append(s.Interfaces, methodSet(fns))
		}
	}
}

// summarizeTypes records the package's types with a relevant method by
// their methods' names and signatures.
func (c *checker) summarizeTypes(s *txflow.Summary, relevant map[string]bool) {
	if len(relevant) == 0 {
		return
	}
	for _, ptr := range c.PointerTypes() {
		if !c.hasRelevantMethod(ptr, relevant) {
			continue
		}
		s.Types = append(s.Types, methodSet(c.methodsOf(ptr)))
	}
}

// pointerMethods returns the method set of ptr in types.MethodSet's
// order: a struct that embeds nothing has only its declared methods, read
// without building the set (which cost a package of a hundred sqlc-style
// methods more than its summary).
func pointerMethods(ptr *types.Pointer) []*types.Func {
	if n, ok := ptr.Elem().(*types.Named); ok && !embeds(n) {
		fns := make([]*types.Func, n.NumMethods())
		for i := range fns {
			fns[i] = n.Method(i)
		}
		slices.SortFunc(fns, func(a, b *types.Func) int { return strings.Compare(a.Id(), b.Id()) })
		return fns
	}
	mset := types.NewMethodSet(ptr)
	fns := make([]*types.Func, mset.Len())
	for i := range fns {
		fns[i] = mset.At(i).Obj().(*types.Func)
	}
	return fns
}

// embeds reports a named struct type with an embedded field, whose
// methods may be promoted to it.
func embeds(n *types.Named) bool {
	st, ok := n.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := range st.NumFields() {
		if st.Field(i).Embedded() {
			return true
		}
	}
	return false
}

// methodSet describes methods by name, with their keys and signatures
// made when asked.
func methodSet(fns []*types.Func) txflow.MethodSet {
	ms := txflow.MethodSet{Names: make([]string, len(fns))}
	for i, fn := range fns {
		ms.Names[i] = fn.Name()
	}
	ms.Methods = func() []txflow.Method {
		out := make([]txflow.Method, len(fns))
		for i, fn := range fns {
			out[i] = txflow.Method{Key: gosql.FuncKey(fn), Sig: methodSig(fn)}
		}
		return out
	}
	return ms
}

// methodSig spells a method's name and signature with package paths, the
// same in every package of a load.
func methodSig(fn *types.Func) string {
	sig := fn.Type().(*types.Signature)
	unnamed := func(t *types.Tuple) *types.Tuple {
		vs := make([]*types.Var, t.Len())
		for i := range vs {
			vs[i] = types.NewParam(token.NoPos, nil, "", t.At(i).Type())
		}
		return types.NewTuple(vs...)
	}
	bare := types.NewSignatureType(nil, nil, nil, unnamed(sig.Params()), unnamed(sig.Results()), sig.Variadic())
	return fn.Name() + types.TypeString(bare, func(p *types.Package) string { return p.Path() })
}

// moduleInterfaces returns the interfaces with methods that p and the
// module packages it imports, directly or not, declare; shared by the
// module's packages, as their imports are.
func (c *checker) moduleInterfaces(p *types.Package) []*types.Interface {
	if v, ok := c.Settings.Ifaces.Load(p); ok {
		return v.([]*types.Interface)
	}
	seen := map[*types.Interface]bool{}
	var out []*types.Interface
	add := func(it *types.Interface) {
		if !seen[it] {
			seen[it] = true
			out = append(out, it)
		}
	}
	scope := p.Scope()
	for _, name := range scope.Names() {
		if tn, ok := scope.Lookup(name).(*types.TypeName); ok {
			if it, ok := tn.Type().Underlying().(*types.Interface); ok && it.NumMethods() > 0 {
				add(it)
			}
		}
	}
	for _, imp := range p.Imports() {
		if c.inModulePkg(imp) {
			for _, it := range c.moduleInterfaces(imp) {
				add(it)
			}
		}
	}
	c.Settings.Ifaces.Store(p, out)
	return out
}

// summarizeCAS records the functions that return a compare-and-swap
// write's result, and the module calls that drop a write's result.
func (c *checker) summarizeCAS(s *txflow.Summary, scripts map[*sqltext.Text]*sqlparse.Script) {
	info := c.Pass.TypesInfo
	for _, q := range c.Queries {
		key, _, _ := c.scopeFunc(q.Scope)
		ret, ok := q.Parent.(*ast.ReturnStmt)
		if key == "" || !ok || len(ret.Results) == 0 || ret.Results[0] != q.Call || !gosql.ExecMethods[q.Key] || scripts[q.Text] == nil {
			continue
		}
		for _, st := range scripts[q.Text].Stmts {
			if rules.IsCASWrite(c.Settings.Cfg, st) {
				s.CASResults = append(s.CASResults, txflow.CASResult{Func: key, Pos: q.Call.Pos()})
				break
			}
		}
	}
	for _, oc := range c.outCalls {
		if !returnsWriteResult(info, oc.call) {
			continue
		}
		if how := c.resultUse(&gosql.Query{Call: oc.call, Site: gosql.Site{Parent: oc.parent, Frame: &gosql.Frame{Scope: oc.scope}}}); how != "" && !c.SuppressedAt("DSQL004", oc.call.Pos(), nil) {
			s.Drops = append(s.Drops, txflow.Drop{Callee: oc.callee, How: how, Pos: oc.call.Pos(), End: oc.call.End()})
		}
	}
}

func locksForUpdate(st *sqlparse.Statement) bool {
	for _, l := range st.Locks {
		if l.Strength == sqlparse.ForUpdate {
			return true
		}
	}
	return false
}

// paramIndex returns the index of obj among ft's parameters, or -1.
func paramIndex(info *types.Info, ft *ast.FuncType, obj types.Object) int {
	if obj == nil || ft == nil {
		return -1
	}
	i := 0
	for _, field := range ft.Params.List {
		for _, name := range field.Names {
			if info.Defs[name] == obj {
				return i
			}
			i++
		}
		if len(field.Names) == 0 {
			i++
		}
	}
	return -1
}

// outCall is a call of a function of another package of the module, with
// what tells whether it runs inside a retry.
type outCall struct {
	scope   ast.Node
	call    *ast.CallExpr
	parent  ast.Node
	callee  string
	closure bool
	loops   []ast.Node
	iface   bool // a method of an interface
}

// inModule reports whether fn belongs to another package of the module
// being analysed (the module stage only joins the module's packages).
func (c *checker) inModule(fn *types.Func) bool {
	return fn.Pkg() != c.Pass.Pkg && c.inModulePkg(fn.Pkg())
}

// inModulePkg reports whether p is a package of the module being
// analysed, of another module of its workspace (go.work), or a helper
// outside them whose summary is in view (helperPkg).
func (c *checker) inModulePkg(p *types.Package) bool {
	m := c.Pass.Module
	if p == nil {
		return false
	}
	under := func(mod string) bool { return p.Path() == mod || strings.HasPrefix(p.Path(), mod+"/") }
	if m != nil && m.Path != "" && (under(m.Path) || slices.ContainsFunc(c.Settings.Workspace, under)) {
		return true
	}
	return c.helperPkg(p)
}

// sqlcLocks maps each sqlc query of the package's query files that locks
// FOR UPDATE to the span of its first such clause.
func (c *checker) sqlcLocks(scripts map[*sqltext.Text]*sqlparse.Script) map[string][2]token.Pos {
	out := map[string][2]token.Pos{}
	for t, sc := range scripts {
		if t.Node != nil || t.Ref {
			continue // only .sql files
		}
		for _, st := range sc.Stmts {
			name, _ := sqlparse.SqlcQuery(sc.Text, st.Span.Start)
			if name == "" {
				continue
			}
			for _, l := range st.Locks {
				if _, seen := out[name]; !seen {
					out[name] = [2]token.Pos{t.Pos(l.Span.Start, false), t.Pos(l.Span.End, true)}
				}
			}
		}
	}
	return out
}

// sqlcName is the query name of a generated const's text
// ("-- name: LockShard :one ..."), or "".
func sqlcName(text string) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), "-- name:")
	if !ok {
		return ""
	}
	if f := strings.Fields(rest); len(f) > 0 {
		return f[0]
	}
	return ""
}

// boundToBegins finds, in the functions that begin transactions, the
// values made by a call that is given the transaction
// (qtx := q.WithTx(tx), repo := NewRepo(tx)), keyed like boundKey.
func (c *checker) boundToBegins(begins map[types.Object]int, scopes map[ast.Node]bool) map[any]int {
	bound := map[any]int{}
	if len(begins) == 0 {
		return bound
	}
	info := c.Pass.TypesInfo
	for scope := range scopes {
		ast.Inspect(scope, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				// q.WithTx(tx).LockShard(ctx): the call itself is bound.
				if b, ok := txArg(info, call, begins); ok {
					bound[call] = b
				}
			}
			a, ok := n.(*ast.AssignStmt)
			if !ok || len(a.Lhs) != len(a.Rhs) {
				return true
			}
			for i, r := range a.Rhs {
				call, ok := ast.Unparen(r).(*ast.CallExpr)
				if !ok {
					continue
				}
				if b, ok := txArg(info, call, begins); ok {
					if id, ok := a.Lhs[i].(*ast.Ident); ok {
						if obj := info.ObjectOf(id); obj != nil {
							bound[obj] = b
						}
					}
				}
			}
			return true
		})
	}
	return bound
}

// txArg reports a call of a non-query function given a begun transaction.
func txArg(info *types.Info, call *ast.CallExpr, begins map[types.Object]int) (int, bool) {
	if _, key, ok := gosql.CalleeOf(info, call); !ok || gosql.QueryArgOf(key, call) != nil {
		return 0, false // not a call, or a query run on the transaction
	}
	for _, arg := range call.Args {
		if id, ok := ast.Unparen(arg).(*ast.Ident); ok {
			if b, ok := begins[info.Uses[id]]; ok {
				return b, true
			}
		}
	}
	return 0, false
}

// boundKey is what boundToBegins keys a receiver expression by: its
// variable, or the call that made it.
func boundKey(info *types.Info, x ast.Expr) any {
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		return info.Uses[x]
	case *ast.CallExpr:
		return x
	}
	return nil
}

// callAssign is `a, b := f(...)` with f a function of another package of
// the module: its results may be a transaction f begins.
type callAssign struct {
	scope ast.Node
	call  *ast.CallExpr
	lhs   []*ast.Ident
	// retried marks a call inside a retry: a transaction it returns is
	// begun inside it; loop as beginCall's.
	retried bool
	loop    token.Pos
}

// noteCallAssign records an assignment of a module call's results.
func (c *checker) noteCallAssign(a *ast.AssignStmt, at gosql.Site) {
	scope := at.Scope
	if len(a.Rhs) != 1 || scope == nil {
		return
	}
	call, ok := ast.Unparen(a.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return
	}
	if fn, _, ok := gosql.CalleeOf(c.Pass.TypesInfo, call); !ok || !(c.inModule(fn) || gosql.OwnInterfaceMethod(fn, c.Pass.Pkg)) {
		return
	}
	ca := callAssign{scope: scope, call: call, retried: c.retried(at), loop: c.loopAround(at)}
	for _, l := range a.Lhs {
		id, _ := l.(*ast.Ident)
		if id == nil {
			id = &ast.Ident{Name: "_"}
		}
		ca.lhs = append(ca.lhs, id)
	}
	c.callAssigns = append(c.callAssigns, ca)
}

// returnsWriteResult reports a call whose first result is a write's
// result: database/sql's Result or pgx's CommandTag.
func returnsWriteResult(info *types.Info, call *ast.CallExpr) bool {
	sig, ok := info.TypeOf(call.Fun).(*types.Signature)
	if !ok || sig.Results().Len() == 0 {
		return false
	}
	t := sig.Results().At(0).Type()
	return gosql.IsNamed(t, gosql.PkgSQL, "Result", false) || gosql.IsNamed(t, "github.com/jackc/pgx/v5/pgconn", "CommandTag", false)
}

// madeFromPool reports whether x is a value a call made from a pool or a
// connection (`sqlc.New(pool)`, `q := NewRepo(db)`), and whether it is
// pgx's: its methods query the pool.
func (c *checker) madeFromPool(x ast.Expr) (pool, pgx bool) {
	if id, ok := ast.Unparen(x).(*ast.Ident); ok {
		x = c.Defs[c.Pass.TypesInfo.Uses[id]]
	}
	call, ok := ast.Unparen(x).(*ast.CallExpr)
	if !ok || gosql.CallRecv(c.Pass.TypesInfo, call) != nil {
		return false, false // (q.WithTx(tx) is a method)
	}
	if _, _, ok := gosql.CalleeOf(c.Pass.TypesInfo, call); !ok {
		return false, false
	}
	for _, a := range call.Args {
		if pool, pgx := c.onPool(a); pool {
			return true, pgx
		}
	}
	return false, false
}

// hasRelevantMethod reports whether ptr has a relevant method, its own or
// promoted from an embedded field.
func (c *checker) hasRelevantMethod(ptr *types.Pointer, relevant map[string]bool) bool {
	if _, ok := ptr.Elem().(*types.Named); !ok {
		return false
	}
	return slices.ContainsFunc(c.methodsOf(ptr), func(fn *types.Func) bool { return relevant[c.Key(fn)] })
}

// methodsOf returns pointerMethods(ptr), made once: a type's method set
// is asked for its summary and for each interface it may implement.
func (c *checker) methodsOf(ptr *types.Pointer) []*types.Func {
	if fns, ok := c.methods[ptr]; ok {
		return fns
	}
	if c.methods == nil {
		c.methods = map[*types.Pointer][]*types.Func{}
	}
	fns := pointerMethods(ptr)
	c.methods[ptr] = fns
	return fns
}

// summarizeRepeatable records the package's exported functions a retry
// may run again (DSQL005's fix, where another package's transaction calls them),
// with the functions of other packages they rest on.
func (c *checker) summarizeRepeatable(s *txflow.Summary) {
	if !s.Enabled || !c.Settings.CanImportRuntime(modconf.RuntimeOCC) && !c.Settings.CanImportRuntime(modconf.RuntimeOCCPGX) {
		return // no fix is offered where the runtime cannot be imported: no Begin asks
	}
	fns := make([]*types.Func, 0, len(c.Funcs))
	for fn := range c.Funcs {
		if fn.Exported() { // (another package calls nothing else)
			fns = append(fns, fn)
		}
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].Pos() < fns[j].Pos() })
	for _, fn := range fns {
		why, needs := c.fix.FuncRepeatable(fn, map[*types.Func]bool{})
		if why != "" {
			continue
		}
		r := txflow.Repeatable{Func: c.Key(fn)}
		for _, n := range needs {
			r.Needs = append(r.Needs, n.Func)
		}
		s.Repeatable = append(s.Repeatable, r)
	}
}
