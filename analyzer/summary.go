package analyzer

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// A package's analysis also returns a Summary: what its functions do with
// transactions that another package of the module may begin. The dsqllint
// command joins the summaries of a module's packages (ModuleFindings) to
// find a FOR UPDATE run, in one package, on a transaction another package
// begins outside any 40001 retry. No analysis facts: go vet and the other
// drivers, which run package by package, keep the per-package judgement.

// Summary is one package's contribution to the module stage.
type Summary struct {
	Pkg string
	// Enabled reports whether DSQL005 runs for the package.
	Enabled bool
	// Locks are FOR UPDATE queries run on a function's parameter.
	Locks []ParamLock
	// Passes are calls that hand a parameter, or a transaction the caller
	// begins, to another function of the module.
	Passes []Pass
	// Begins are transactions begun outside any retry the package sees.
	Begins []Begin
	// Retried are the functions some call of this package runs inside a
	// retry helper's closure or a loop that checks for SQLSTATE 40001.
	Retried []string
	// Returns are the transactions functions begin and hand back.
	Returns []Return
	// RetryHelpers are the package's functions that retry a function
	// argument on 40001, by their body; HelperBegins and HelperCalls are
	// the Begins and calls inside closures passed to a function of
	// another package, which retries them when it is one.
	RetryHelpers []string
	HelperBegins []HelperSite
	HelperCalls  []HelperSite
	// CASEnabled reports whether DSQL004 runs for the package; CASResults
	// are functions that return the result of a compare-and-swap write
	// (`return tx.ExecContext(ctx, casQuery, ...)`, sqlc's :execresult),
	// and Drops the calls of module functions whose result is dropped.
	CASEnabled bool
	CASResults []CASResult
	Drops      []Drop
}

// HelperSite is a Begin (at Pos) or a call (of Callee) in a closure
// passed to Helper.
type HelperSite struct {
	Helper, Callee string
	Pos            token.Pos
}

// CASResult is a function returning, as its first result, the result of
// the compare-and-swap write at Pos.
type CASResult struct {
	Func string
	Pos  token.Pos
}

// Drop is a call of Callee whose first result is discarded or never read
// for its row count (How says which).
type Drop struct {
	Callee   string
	How      string
	Pos, End token.Pos
}

// ParamLock is a FOR UPDATE run on parameter Param of Func.
type ParamLock struct {
	Func     string
	Param    int
	Pos, End token.Pos
}

// receiverArg stands for a method's receiver where a parameter index goes:
// a lock run on a field of the receiver (q.db), a call made on a value
// bound to a transaction.
const receiverArg = -2

// Pass is a call in From handing its parameter Param (or, with Begin >= 0,
// the transaction of Begins[Begin]) to argument Arg of Callee.
type Pass struct {
	From   string
	Param  int
	Begin  int
	Callee string
	Arg    int
	Pos    token.Pos
}

// Begin is a transaction begun in Func.
type Begin struct {
	Func string
	Pos  token.Pos
	PGX  bool
	// Via names the function whose result Result is the transaction, when
	// a helper of the module begins it (tx, commit, err := PrepareTx(...));
	// it counts only if that function's summary Returns it.
	Via    string
	Result int
}

// Return is a transaction Func begins and returns as result Result.
type Return struct {
	Func   string
	Result int
	PGX    bool
}

// funcKey names a function across packages.
func funcKey(fn *types.Func) string {
	if fn == nil {
		return ""
	}
	return fn.FullName()
}

// summarize builds the package's Summary from what collect and flow saw.
func (c *checker) summarize(scripts map[*Text]*sqlparse.Script) *Summary {
	s := &Summary{Pkg: c.pass.Pkg.Path(), Enabled: c.settings.cfg.Enabled("DSQL005"), CASEnabled: c.settings.cfg.Enabled("DSQL004")}
	c.summarizeLocks(s, scripts)
	begins, scopes := c.summarizeBegins(s)
	c.summarizePasses(s, begins, scopes)
	c.summarizeCAS(s, scripts)
	c.summarizeHelpers(s)
	return s
}

// summarizeHelpers records the package's retry helpers and what runs in
// closures handed to functions of other packages.
func (c *checker) summarizeHelpers(s *Summary) {
	for fn := range c.funcs {
		if c.retryHelper(fn) {
			s.RetryHelpers = append(s.RetryHelpers, funcKey(fn))
		}
	}
	for _, b := range c.begins {
		if b.helper != "" {
			s.HelperBegins = append(s.HelperBegins, HelperSite{Helper: b.helper, Pos: b.call.Pos()})
		}
	}
	for _, oc := range c.outCalls {
		if oc.helper != "" {
			s.HelperCalls = append(s.HelperCalls, HelperSite{Helper: oc.helper, Callee: oc.callee, Pos: oc.call.Pos()})
		}
	}
	for _, calls := range c.calls {
		for _, lc := range calls {
			if fn, ok := c.pass.TypesInfo.Defs[lc.fn.Name].(*types.Func); ok && lc.helper != "" {
				s.HelperCalls = append(s.HelperCalls, HelperSite{Helper: lc.helper, Callee: funcKey(fn), Pos: lc.call.Pos()})
			}
		}
	}
}

// declKey returns the function a scope is, when it is a declared one.
func (c *checker) declKey(scope ast.Node) (string, *ast.FuncDecl) {
	fd, ok := scope.(*ast.FuncDecl)
	if !ok {
		return "", nil
	}
	fn, _ := c.pass.TypesInfo.Defs[fd.Name].(*types.Func)
	return funcKey(fn), fd
}

// summarizeLocks records the FOR UPDATE queries run on a parameter or a
// receiver's field; in sqlc's generated Go, at the lock in the query file.
func (c *checker) summarizeLocks(s *Summary, scripts map[*Text]*sqlparse.Script) {
	info := c.pass.TypesInfo
	sqlcLocks := c.sqlcLocks(scripts)
	for _, q := range c.queries {
		key, fd := c.declKey(q.scope)
		sc := scripts[q.text]
		if fd == nil || sc == nil || !locksForUpdate(sc) {
			continue
		}
		i := paramIndex(info, fd, receiverObj(info, q.call))
		if i < 0 {
			if !onReceiverField(info, fd, q.call) {
				continue
			}
			i = receiverArg // q.db.QueryRowContext: the handle the value holds
		}
		pos, end := q.call.Pos(), q.call.End()
		if c.generated[c.fileOf(pos)] {
			sp, ok := sqlcLocks[sqlcName(sc.Text)]
			if !ok {
				continue
			}
			pos, end = sp[0], sp[1]
		}
		if !c.suppressedAt("DSQL005", pos, nil) {
			s.Locks = append(s.Locks, ParamLock{Func: key, Param: i, Pos: pos, End: end})
		}
	}
}

// summarizeBegins records the unretried Begins, those a function returns,
// and the transactions a helper of the module may have begun for the
// caller. It returns each transaction variable's Begin and the functions
// that hold one.
func (c *checker) summarizeBegins(s *Summary) (map[types.Object]int, map[ast.Node]bool) {
	info := c.pass.TypesInfo
	begins := map[types.Object]int{}
	scopes := map[ast.Node]bool{}
	for _, b := range c.begins {
		key, fd := c.declKey(b.scope)
		if fd == nil {
			continue
		}
		begins[b.tx] = len(s.Begins)
		scopes[b.scope] = true
		s.Begins = append(s.Begins, Begin{Func: key, Pos: b.call.Pos(), PGX: b.pgx})
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok {
				return false // a closure's return is not the function's
			}
			if r, ok := n.(*ast.ReturnStmt); ok {
				for k, res := range r.Results {
					if id, ok := ast.Unparen(res).(*ast.Ident); ok && info.Uses[id] == b.tx {
						s.Returns = append(s.Returns, Return{Func: key, Result: k, PGX: b.pgx})
					}
				}
			}
			return true
		})
	}
	for _, ca := range c.callAssigns {
		key, fd := c.declKey(ca.scope)
		fn, _, ok := calleeOf(info, ca.call)
		if fd == nil || !ok {
			continue
		}
		for k, lhs := range ca.lhs {
			if obj := info.ObjectOf(lhs); obj != nil && isTxType(obj.Type()) {
				begins[obj] = len(s.Begins)
				scopes[ca.scope] = true
				s.Begins = append(s.Begins, Begin{Func: key, Pos: ca.call.Pos(), Via: funcKey(fn), Result: k})
			}
		}
	}
	return begins, scopes
}

// summarizePasses records the calls that hand a parameter, a begun
// transaction or a value made from one to another function, and the
// functions called inside a retry.
func (c *checker) summarizePasses(s *Summary, begins map[types.Object]int, scopes map[ast.Node]bool) {
	info := c.pass.TypesInfo
	bound := c.boundToBegins(begins, scopes)
	pass := func(from string, fd *ast.FuncDecl, callee string, call *ast.CallExpr) {
		for j, arg := range call.Args {
			id, ok := ast.Unparen(arg).(*ast.Ident)
			if !ok {
				continue
			}
			obj := info.Uses[id]
			if b, ok := begins[obj]; ok {
				s.Passes = append(s.Passes, Pass{From: from, Param: -1, Begin: b, Callee: callee, Arg: j, Pos: call.Pos()})
			} else if i := paramIndex(info, fd, obj); i >= 0 {
				s.Passes = append(s.Passes, Pass{From: from, Param: i, Begin: -1, Callee: callee, Arg: j, Pos: call.Pos()})
			}
		}
	}
	for _, oc := range c.outCalls {
		if oc.closure || c.anyMentionsRetry(oc.loops) {
			s.Retried = append(s.Retried, oc.callee)
		}
		key, fd := c.declKey(oc.scope)
		if fd == nil {
			continue
		}
		// A method called on a value made from a transaction runs on it:
		// qtx := q.WithTx(tx); qtx.LockShard(ctx, id).
		if sel, ok := oc.call.Fun.(*ast.SelectorExpr); ok {
			if b, ok := bound[boundKey(info, sel.X)]; ok {
				s.Passes = append(s.Passes, Pass{From: key, Param: -1, Begin: b, Callee: oc.callee, Arg: receiverArg, Pos: oc.call.Pos()})
			}
		}
		pass(key, fd, oc.callee, oc.call)
	}
	// The package's own functions: a transaction reaches a lock in another
	// package through a local helper too.
	for scope, calls := range c.calls {
		key, fd := c.declKey(scope)
		for _, lc := range calls {
			fn, ok := info.Defs[lc.fn.Name].(*types.Func)
			if !ok {
				continue
			}
			if lc.retryClosure || c.anyMentionsRetry(lc.loops) {
				s.Retried = append(s.Retried, funcKey(fn))
			}
			if fd != nil {
				pass(key, fd, funcKey(fn), lc.call)
			}
		}
	}
}

// summarizeCAS records the functions that return a compare-and-swap
// write's result, and the module calls that drop a write's result.
func (c *checker) summarizeCAS(s *Summary, scripts map[*Text]*sqlparse.Script) {
	info := c.pass.TypesInfo
	for _, q := range c.queries {
		key, fd := c.declKey(q.scope)
		ret, ok := q.parent.(*ast.ReturnStmt)
		if fd == nil || !ok || len(ret.Results) == 0 || ret.Results[0] != q.call || !execMethods[q.key] || scripts[q.text] == nil {
			continue
		}
		for _, st := range scripts[q.text].Stmts {
			if rules.IsCASWrite(c.settings.cfg, st) {
				s.CASResults = append(s.CASResults, CASResult{Func: key, Pos: q.call.Pos()})
				break
			}
		}
	}
	for _, oc := range c.outCalls {
		if !returnsWriteResult(info, oc.call) {
			continue
		}
		if how := c.resultUse(&queryCall{call: oc.call, parent: oc.parent, scope: oc.scope}); how != "" && !c.suppressedAt("DSQL004", oc.call.Pos(), nil) {
			s.Drops = append(s.Drops, Drop{Callee: oc.callee, How: how, Pos: oc.call.Pos(), End: oc.call.End()})
		}
	}
}

func locksForUpdate(s *sqlparse.Script) bool {
	for _, st := range s.Stmts {
		for _, l := range st.Locks {
			if l.Strength == sqlparse.ForUpdate {
				return true
			}
		}
	}
	return false
}

// paramIndex returns the index of obj among fd's parameters, or -1.
func paramIndex(info *types.Info, fd *ast.FuncDecl, obj types.Object) int {
	if obj == nil {
		return -1
	}
	i := 0
	for _, field := range fd.Type.Params.List {
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
	helper  string // as localCall.helper
}

// inModule reports whether fn belongs to another package of the module
// being analysed (the module stage only joins the module's packages).
func (c *checker) inModule(fn *types.Func) bool {
	m := c.pass.Module
	if m == nil || m.Path == "" || fn.Pkg() == c.pass.Pkg {
		return false
	}
	p := fn.Pkg().Path()
	return p == m.Path || strings.HasPrefix(p, m.Path+"/")
}

// sqlcLocks maps each sqlc query of the package's query files that locks
// FOR UPDATE to the span of its first such clause.
func (c *checker) sqlcLocks(scripts map[*Text]*sqlparse.Script) map[string][2]token.Pos {
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
				if _, seen := out[name]; !seen && l.Strength == sqlparse.ForUpdate {
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

// onReceiverField reports a query call made on a field of fd's receiver
// (q.db.QueryRowContext in sqlc's generated methods, r.tx.Exec in a
// repository type).
func onReceiverField(info *types.Info, fd *ast.FuncDecl, call *ast.CallExpr) bool {
	if fd.Recv == nil || len(fd.Recv.List) == 0 || len(fd.Recv.List[0].Names) == 0 {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	field, ok := ast.Unparen(sel.X).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := ast.Unparen(field.X).(*ast.Ident)
	return ok && info.Uses[id] != nil && info.Uses[id] == info.Defs[fd.Recv.List[0].Names[0]]
}

// boundToBegins finds, in the functions that begin transactions, the
// values made by a call that is given the transaction
// (qtx := q.WithTx(tx), repo := NewRepo(tx)), keyed like boundKey.
func (c *checker) boundToBegins(begins map[types.Object]int, scopes map[ast.Node]bool) map[any]int {
	bound := map[any]int{}
	if len(begins) == 0 {
		return bound
	}
	info := c.pass.TypesInfo
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
	if _, key, ok := calleeOf(info, call); !ok || queryArgOf(key, call) != nil {
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
}

// noteCallAssign records an assignment of a module call's results.
func (c *checker) noteCallAssign(a *ast.AssignStmt, scope ast.Node) {
	if len(a.Rhs) != 1 || scope == nil {
		return
	}
	call, ok := ast.Unparen(a.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return
	}
	if fn, _, ok := calleeOf(c.pass.TypesInfo, call); !ok || !c.inModule(fn) {
		return
	}
	ca := callAssign{scope: scope, call: call}
	for _, l := range a.Lhs {
		id, _ := l.(*ast.Ident)
		if id == nil {
			id = &ast.Ident{Name: "_"}
		}
		ca.lhs = append(ca.lhs, id)
	}
	c.callAssigns = append(c.callAssigns, ca)
}

// isTxType reports a transaction of database/sql, sqlx or pgx.
func isTxType(t types.Type) bool {
	return isNamed(t, pkgSQL, "Tx", true) || isNamed(t, pkgSQLX, "Tx", true) ||
		isNamed(t, pkgPGX, "Tx", false) || isNamed(t, pkgPGXPool, "Tx", true)
}

// returnsWriteResult reports a call whose first result is a write's
// result: database/sql's Result or pgx's CommandTag.
func returnsWriteResult(info *types.Info, call *ast.CallExpr) bool {
	sig, ok := info.TypeOf(call.Fun).(*types.Signature)
	if !ok || sig.Results().Len() == 0 {
		return false
	}
	t := sig.Results().At(0).Type()
	return isNamed(t, pkgSQL, "Result", false) || isNamed(t, "github.com/jackc/pgx/v5/pgconn", "CommandTag", false)
}
