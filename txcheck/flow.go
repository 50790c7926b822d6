package txcheck

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
	"github.com/dsqllint/dsqllint/sqltext"
	"github.com/dsqllint/dsqllint/txflow"
)

// The Go-flow rules read what the code does with SQL: DSQL004 (a CAS
// write's result dropped), DSQL005 (FOR UPDATE on a transaction nothing
// retries), DSQL009/DSQL010 in driver options and pgx calls.

// beginCall is a call that starts a transaction.
type beginCall struct {
	call  *ast.CallExpr
	tx    types.Object // the variable it is assigned to
	scope ast.Node
	pgx   bool
	// loop is the loop around it whose retry the module stage decides.
	loop token.Pos
	// retried marks a Begin inside a loop or closure that re-runs it on
	// 40001: DSQL005 has nothing to say, the module stage still follows
	// what runs in it.
	retried bool
}

// conflictWords name a serialization failure (SQLSTATE 40001) where a
// hand-written retry loop checks for one; retryWords name a retry
// predicate, which counts when its body (if the package has it) checks
// for one: `isNonRetryable(err)` that only rules out a cancelled context
// re-runs nothing on a conflict.
var (
	conflictWords = words{"serializationfail", "serialization_fail", "serializationerr", "serialization fail", "serialization error", "isocc", "occerror", "40001"}
	retryWords    = words{"retryable", "isretry"}
)

// words are lower-case words a name or a literal may hold in any case.
// Asked of every identifier of a retry loop's body: a case-insensitive
// regular expression cost ten times this scan.
type words []string

// in reports whether s holds one of the words, its ASCII letters in any case.
func (ws words) in(s string) bool {
	for _, w := range ws {
		for i := 0; i+len(w) <= len(s); i++ {
			if lower(s[i]) == w[0] && strings.EqualFold(s[i:i+len(w)], w) {
				return true
			}
		}
	}
	return false
}

func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// retried reports whether a node at site runs inside a retry: a closure
// passed to a retry helper, or a loop whose body checks for serialization
// failures.
func (c *checker) retried(at gosql.Site) bool {
	closure, loops := c.retryContext(at)
	return closure || c.anyMentionsRetry(loops)
}

// retryContext returns, for a node at site, whether it sits in a closure
// passed to a retry helper, and the bodies of the loops around it in its
// function (judged later, and only if needed: walking them is the costly
// part). A closure's own retries are checked where it is called.
func (c *checker) retryContext(at gosql.Site) (closure bool, loops []ast.Node) {
	if at.Handed != nil {
		fn, _, _ := gosql.CalleeOf(c.Pass.TypesInfo, at.Handed)
		closure = c.Settings.RetryFuncs.Has(fn) || c.retryHelper(fn)
	}
	return closure, at.Loops
}

// retryHelper reports whether fn, a function of the package, is a retry
// helper by what its body does: inside a loop that checks for SQLSTATE
// 40001, it calls one of its function parameters. A wrapper whose loop
// only checks for broken connections is none.
func (c *checker) retryHelper(fn *types.Func) bool {
	fd := c.Funcs[fn]
	if fd == nil {
		return false
	}
	if v, ok := c.helpers[fd]; ok {
		return v
	}
	// Most functions take no function: answered without a map or a
	// cache entry.
	var params map[types.Object]bool
	for _, field := range fd.Type.Params.List {
		if _, ok := c.Pass.TypesInfo.TypeOf(field.Type).Underlying().(*types.Signature); ok {
			for _, name := range field.Names {
				if params == nil {
					params = map[types.Object]bool{}
				}
				params[c.Pass.TypesInfo.Defs[name]] = true
			}
		}
	}
	if len(params) == 0 {
		return false
	}
	c.helpers[fd] = false // a recursive helper is judged by its loop
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		var body *ast.BlockStmt
		switch l := n.(type) {
		case *ast.ForStmt:
			body = l.Body
		case *ast.RangeStmt:
			body = l.Body
		default:
			return !found
		}
		if c.callsParam(body, params) && c.mentionsRetry(body) {
			found = true
		}
		return !found
	})
	c.helpers[fd] = found
	return found
}

// callsParam reports whether body calls one of the function parameters.
func (c *checker) callsParam(body ast.Node, params map[types.Object]bool) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && params[c.Pass.TypesInfo.Uses[id]] {
				found = true
			}
		}
		return !found
	})
	return found
}

// anyMentionsRetry reports whether one of the loop bodies checks for
// SQLSTATE 40001; such a loop is one of the package's retry constructs.
func (c *checker) anyMentionsRetry(loops []ast.Node) bool {
	for _, body := range loops {
		if c.mentionsRetry(body) {
			if !c.retryLoops[body] {
				if c.retryLoops == nil {
					c.retryLoops = map[ast.Node]bool{}
				}
				c.retryLoops[body] = true
				c.retrySites = append(c.retrySites, txflow.Retry{Pos: body.Pos()})
			}
			return true
		}
	}
	return false
}

// mentionsRetry reports whether a loop body checks for SQLSTATE 40001.
// A check left to a predicate of another package of the module (or an
// interface method) is recorded for the module stage (loopPreds).
func (c *checker) mentionsRetry(body ast.Node) bool {
	if found, ok := c.loops[body]; ok {
		return found // every call in a loop asks about the same body
	}
	c.loops[body] = false // a recursive predicate is judged by the rest
	var pending []string
	found := c.checksConflict(body, 2, &pending)
	c.loops[body] = found
	if !found && len(pending) > 0 {
		if c.loopPreds == nil {
			c.loopPreds = map[ast.Node][]string{}
		}
		c.loopPreds[body] = pending
	}
	return found
}

// checksConflict reports whether code checks for a serialization failure:
// it spells SQLSTATE 40001, names a serialization failure, or calls a
// predicate (an error in, a bool out) that does — one of the package's
// own by its body (depth more calls down), another package's named like a
// retry predicate by its name. The module's other predicates are added to
// pending, for the module stage to judge by their bodies.
func (c *checker) checksConflict(n ast.Node, depth int, pending *[]string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr, *ast.CallExpr:
			found = found || c.testsClass40(n) || c.testsSentinel(n, pending)
		case *ast.BasicLit:
			found = found || n.Kind == token.STRING && (strings.Contains(n.Value, "40001") || conflictWords.in(n.Value))
		case *ast.Ident:
			obj := c.Pass.TypesInfo.Uses[n]
			fn := asFunc(obj)
			switch {
			case conflictWords.in(n.Name):
				found = true
			case c.Funcs[fn] != nil && (isPredicate(fn) || retryWords.in(n.Name)):
				found = depth > 0 && c.checksConflict(c.Funcs[fn].Body, depth-1, pending)
			case fn != nil && fn.Pkg() == c.Pass.Pkg && gosql.IsInterfaceMethod(fn) && isPredicate(fn):
				// A dialect's predicate: what the package's
				// implementations check.
				for _, fd := range c.Implementations(fn) {
					found = found || depth > 0 && c.checksConflict(fd.Body, depth-1, pending)
				}
				if !found && pending != nil {
					// and those of the packages that import this one (a
					// store's driver): the module stage's to judge.
					*pending = append(*pending, c.Key(fn))
				}
			case retryWords.in(n.Name):
				found = obj == nil || fn != nil
			case fn != nil && isPredicate(fn) && pending != nil && (c.inModule(fn) || gosql.IsInterfaceMethod(fn) && c.inModulePkg(fn.Pkg())):
				*pending = append(*pending, c.Key(fn))
			}
			// An error value of the package (errConflict =
			// errors.New("40001")) is judged by what it holds.
			if v, ok := obj.(*types.Var); ok && !found && depth > 0 && v.Pkg() == c.Pass.Pkg && v.Parent() == v.Pkg().Scope() {
				if def, ok := c.Defs[v]; ok {
					found = c.checksConflict(def, depth-1, pending)
				}
			}
		}
		return !found
	})
	return found
}

// testsClass40 reports a test of an SQLSTATE's class 40, transaction
// rollback, which holds 40001: `code[:2] == "40"`,
// `strings.HasPrefix(code, "40")`, pgerrcode.IsTransactionRollback(code).
func (c *checker) testsClass40(n ast.Node) bool {
	is40 := func(e ast.Expr) bool {
		lit, ok := ast.Unparen(e).(*ast.BasicLit)
		return ok && lit.Kind == token.STRING && (lit.Value == `"40"` || lit.Value == "`40`")
	}
	prefix2 := func(e ast.Expr) bool {
		s, ok := ast.Unparen(e).(*ast.SliceExpr)
		if !ok || s.High == nil || s.Slice3 {
			return false
		}
		tv := c.Pass.TypesInfo.Types[s.High]
		lowZero := s.Low == nil
		if s.Low != nil {
			lv := c.Pass.TypesInfo.Types[s.Low]
			lowZero = lv.Value != nil && lv.Value.String() == "0"
		}
		return lowZero && tv.Value != nil && tv.Value.String() == "2"
	}
	switch n := n.(type) {
	case *ast.BinaryExpr:
		return n.Op == token.EQL && (is40(n.X) && prefix2(n.Y) || is40(n.Y) && prefix2(n.X))
	case *ast.CallExpr:
		fn, _ := typeutil.Callee(c.Pass.TypesInfo, n).(*types.Func)
		if fn == nil || fn.Pkg() == nil {
			return false
		}
		switch {
		case fn.Pkg().Path() == "strings" && fn.Name() == "HasPrefix" && len(n.Args) == 2:
			return is40(n.Args[1])
		case fn.Name() == "IsTransactionRollback":
			return true // jackc/pgerrcode's class 40
		}
	}
	return false
}

// isPredicate reports a function that judges an error: it takes one and
// returns a bool first.
func isPredicate(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Results().Len() == 0 || !types.Identical(sig.Results().At(0).Type(), types.Typ[types.Bool]) {
		return false
	}
	for i := range sig.Params().Len() {
		if gosql.IsError(sig.Params().At(i).Type()) {
			return true
		}
	}
	return false
}

// loopAround is pendingLoop for a node at site.
func (c *checker) loopAround(at gosql.Site) token.Pos {
	return c.pendingLoop(at.Loops)
}

// pendingLoop returns the loop around a call whose check for 40001 the
// module stage decides (a predicate of another package), or NoPos.
func (c *checker) pendingLoop(loops []ast.Node) token.Pos {
	for _, body := range loops {
		c.mentionsRetry(body)
		if preds := c.loopPreds[body]; len(preds) > 0 {
			return body.Pos()
		}
	}
	return token.NoPos
}

// asFunc returns obj as a function, or nil.
func asFunc(obj types.Object) *types.Func {
	fn, _ := obj.(*types.Func)
	return fn
}

// observeCall handles calls that matter to the Go-flow rules as they are
// met: transaction begins, pgx savepoints, ORM and builder locking.
func (c *checker) observeCall(call *ast.CallExpr, fn *types.Func, key gosql.Callee, at gosql.Site) {
	scope := at.Scope
	if gosql.BeginMethods[key] {
		if recvNamed(fn, gosql.PkgPGX, "Tx") || recvNamed(fn, gosql.PkgPGXPool, "Tx") {
			// A decorator of pgx.Tx forwards its own Begin: whoever calls
			// that nests the transaction, not the decorator.
			if fd, isDecl := scope.(*ast.FuncDecl); !isDecl || fd.Recv == nil || fd.Name.Name != fn.Name() {
				c.reportGo("DSQL010", call.Pos(), call.End(), rules.NestedTxMessage, nil)
			}
			return
		}
		if tx := assignedVar(c.Pass.TypesInfo, at.Parent, call); tx != nil {
			c.begins = append(c.begins, &beginCall{call: call, tx: tx, scope: scope, pgx: strings.HasPrefix(key.Pkg, gosql.PkgPGX), retried: c.retried(at), loop: c.loopAround(at)})
		}
		return
	}
	if pgx, ok := projectBegin(fn); ok {
		if tx := assignedVar(c.Pass.TypesInfo, at.Parent, call); tx != nil {
			c.begins = append(c.begins, &beginCall{call: call, tx: tx, scope: scope, pgx: pgx, retried: c.retried(at), loop: c.loopAround(at)})
		}
		return
	}
	if key.Pkg == gosql.PkgPGX && !key.Method && (key.Name == "BeginFunc" || key.Name == "BeginTxFunc") && len(call.Args) > 0 {
		// pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error { ... }) begins a
		// transaction, runs the closure on it and commits: its parameter
		// is the transaction, begun here.
		if lit, ok := ast.Unparen(call.Args[len(call.Args)-1]).(*ast.FuncLit); ok && len(lit.Type.Params.List) > 0 && len(lit.Type.Params.List[0].Names) > 0 {
			if tx := c.Pass.TypesInfo.Defs[lit.Type.Params.List[0].Names[0]]; tx != nil {
				c.begins = append(c.begins, &beginCall{call: call, tx: tx, scope: scope, pgx: true, retried: c.retried(at), loop: c.loopAround(at)})
			}
		}
		return
	}
	c.observeORM(call, fn, scope)
}

// projectBegin reports a project's own Begin: a method named Begin...
// (of a type or an interface, a wrapper or an adapter) that returns a
// value with Commit and Rollback methods, and an error, the way the
// drivers' Begin does (`func (c *DbConn) Begin() (Tx, error)`, an
// adapter's `Begin(ctx) (adapter.Tx, error)`). pgx says Commit takes a
// context. A Begin on a value that is itself a transaction (a savepoint)
// is none.
func projectBegin(fn *types.Func) (pgx, ok bool) {
	sig, isSig := fn.Type().(*types.Signature)
	if !isSig || sig.Recv() == nil || !strings.HasPrefix(fn.Name(), "Begin") || gosql.DbPackages[fn.Pkg().Path()] ||
		sig.Results().Len() != 2 || !gosql.IsError(sig.Results().At(1).Type()) {
		return false, false
	}
	if _, isTx := txMethods(sig.Recv().Type()); isTx {
		return false, false
	}
	return txMethods(sig.Results().At(0).Type())
}

// txMethods reports whether t (or *t) has Commit and Rollback methods,
// and whether Commit takes a context.
func txMethods(t types.Type) (pgx, ok bool) {
	ms := types.NewMethodSet(t)
	if _, isPtr := t.(*types.Pointer); !isPtr && !types.IsInterface(t) {
		ms = types.NewMethodSet(types.NewPointer(t))
	}
	var commit *types.Func
	rollback := false
	for i := 0; i < ms.Len(); i++ {
		switch f, _ := ms.At(i).Obj().(*types.Func); {
		case f == nil:
		case f.Name() == "Commit":
			commit = f
		case f.Name() == "Rollback":
			rollback = true
		}
	}
	if commit == nil || !rollback {
		return false, false
	}
	if sig, ok := commit.Type().(*types.Signature); ok && sig.Params().Len() > 0 {
		pgx = gosql.IsNamed(sig.Params().At(0).Type(), "context", "Context", false)
	}
	return pgx, true
}

// recvNamed reports whether fn is a method of the named type pkg.name.
func recvNamed(fn *types.Func, pkg, name string) bool {
	n := gosql.RecvNamed(fn)
	return n != nil && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

// assignedVar returns the variable the call, held by parent, is assigned to
// (tx in `tx, err := db.BeginTx(...)`).
func assignedVar(info *types.Info, parent ast.Node, call *ast.CallExpr) types.Object {
	switch p := parent.(type) {
	case *ast.AssignStmt:
		if len(p.Rhs) == 1 && p.Rhs[0] == call {
			if id, ok := p.Lhs[0].(*ast.Ident); ok && id.Name != "_" {
				if obj := info.Defs[id]; obj != nil {
					return obj
				}
				return info.Uses[id]
			}
		}
	case *ast.ValueSpec:
		if len(p.Values) == 1 && p.Values[0] == call && p.Names[0].Name != "_" {
			return info.Defs[p.Names[0]]
		}
	}
	return nil
}

// reportGo reports a Go-flow finding unless the rule is off or a
// //dsqllint:ignore silences it.
func (c *checker) reportGo(id string, pos, end token.Pos, msg string, fix *analysis.SuggestedFix, related ...analysis.RelatedInformation) {
	r := rules.ByID(id)
	if r == nil || !c.Settings.Cfg.Enabled(id) || c.SuppressedAt(id, pos, nil) || c.Generated[c.FileOf(pos)] || c.OtherDatabaseAt(pos) {
		return // (nobody edits sqlc's Go; its query file is checked)
	}
	d := analysis.Diagnostic{Pos: pos, End: end, Category: r.ID, Message: r.Prefix() + msg, URL: r.DocURL(), Related: related}
	if fix != nil && !c.Settings.NoFixes {
		d.SuggestedFixes = []analysis.SuggestedFix{*fix}
	}
	c.report(d)
}

// observeLiteral checks sql.TxOptions / pgx.TxOptions isolation levels
// (DSQL009) and gorm's clause.Locking (DSQL001, DSQL006).
func (c *checker) observeLiteral(lit *ast.CompositeLit, parent ast.Node, scope ast.Node) {
	t := c.Pass.TypesInfo.TypeOf(lit)
	if t == nil || c.unreadField(parent) {
		return
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return
	}
	switch path, name := n.Obj().Pkg().Path(), n.Obj().Name(); {
	case path == gosql.PkgSQL && name == "TxOptions":
		c.isolationOption(lit, "Isolation", sqlIsolationOK, sqlSerializable, scope)
	case path == gosql.PkgPGX && name == "TxOptions":
		c.isolationOption(lit, "IsoLevel", pgxIsolationOK, pgxSerializable, scope)
	case path == gosql.PkgGormClause && name == "Locking":
		c.gormLocking(lit, scope)
	default:
		// A project's own options (database.TxOptions{Isolation:
		// sql.LevelSerializable}) that its transaction helper hands to
		// BeginTx: a field set to a driver's isolation level.
		if _, isStruct := n.Underlying().(*types.Struct); !isStruct {
			return
		}
		for _, e := range lit.Elts {
			kv, isKV := e.(*ast.KeyValueExpr)
			if !isKV {
				continue // a positional literal: DSQL009 names the field it drops
			}
			key, _ := kv.Key.(*ast.Ident)
			if key == nil {
				continue
			}
			if ok, serializable := isolationLevels(c.Pass.TypesInfo.TypeOf(kv.Value)); ok != nil {
				c.isolationOption(lit, key.Name, ok, serializable, scope)
			}
		}
	}
}

// unreadField reports the element of a struct literal (parent) that sets
// an unexported field no selector of the package names: options kept in a
// field nothing reads never reach a Begin.
func (c *checker) unreadField(parent ast.Node) bool {
	kv, ok := parent.(*ast.KeyValueExpr)
	if !ok {
		return false
	}
	key, ok := kv.Key.(*ast.Ident)
	if !ok {
		return false
	}
	f, ok := c.Pass.TypesInfo.Uses[key].(*types.Var)
	if !ok || !f.IsField() || f.Exported() {
		return false
	}
	if c.selected == nil {
		c.selected = map[*types.Var]bool{}
		for _, sel := range c.Pass.TypesInfo.Selections {
			if v, isVar := sel.Obj().(*types.Var); isVar && sel.Kind() == types.FieldVal {
				c.selected[v] = true
			}
		}
	}
	return !c.selected[f]
}

// observeIsolationAssign reports an isolation level DSQL refuses stored
// in a variable or field of a driver's isolation type (iso :=
// pgx.Serializable, then pgx.TxOptions{IsoLevel: s.iso} far away): the
// options that read it name no constant, and this is where it is set. A
// case of a switch translating the project's own levels into the
// driver's (case IsoLevelSerializable: iso = pgx.Serializable) sets
// nothing: its callers choose.
func (c *checker) observeIsolationAssign(as *ast.AssignStmt, parent ast.Node) {
	if _, inCase := parent.(*ast.CaseClause); inCase || len(as.Lhs) != len(as.Rhs) {
		return
	}
	for i, rhs := range as.Rhs {
		tv := c.Pass.TypesInfo.Types[rhs]
		if tv.Value == nil {
			continue
		}
		if ok, _ := isolationLevels(tv.Type); ok != nil && !ok(tv.Value) {
			c.reportGo("DSQL009", rhs.Pos(), rhs.End(), rules.IsolationMessage(types.ExprString(as.Lhs[i])+" "+as.Tok.String(), types.ExprString(rhs)+", the level its transactions begin with,"), nil)
		}
	}
}

// isolationLevels returns, for a driver's isolation type
// (sql.IsolationLevel, pgx.TxIsoLevel), what tells a level DSQL runs and
// SERIALIZABLE; nil for another type.
func isolationLevels(t types.Type) (ok, serializable func(constant.Value) bool) {
	switch {
	case gosql.IsNamed(t, gosql.PkgSQL, "IsolationLevel", false):
		return sqlIsolationOK, sqlSerializable
	case gosql.IsNamed(t, gosql.PkgPGX, "TxIsoLevel", false):
		return pgxIsolationOK, pgxSerializable
	}
	return nil, nil
}

// The isolation levels Aurora DSQL runs (sqlIsolationOK: the default,
// RepeatableRead, Snapshot) and SERIALIZABLE, as database/sql and pgx
// spell them.
func sqlIsolationOK(v constant.Value) bool {
	l, ok := constant.Int64Val(v)
	return ok && (l == 0 || l == 4 || l == 5)
}

func sqlSerializable(v constant.Value) bool {
	l, ok := constant.Int64Val(v)
	return ok && l == 6 // LevelSerializable
}

func pgxIsolationOK(v constant.Value) bool {
	s := constant.StringVal(v)
	return s == "" || s == "repeatable read"
}

func pgxSerializable(v constant.Value) bool { return constant.StringVal(v) == "serializable" }

// isolationOption reports an isolation option DSQL rejects, and records
// a SERIALIZABLE one: the guards of its transaction relied on it (DSQL003).
func (c *checker) isolationOption(lit *ast.CompositeLit, field string, ok, serializable func(constant.Value) bool, scope ast.Node) {
	for i, e := range lit.Elts {
		kv, isKV := e.(*ast.KeyValueExpr)
		if !isKV {
			continue
		}
		if key, _ := kv.Key.(*ast.Ident); key == nil || key.Name != field {
			continue
		}
		v := c.Pass.TypesInfo.Types[kv.Value].Value
		var fix *analysis.SuggestedFix
		if v != nil {
			fix = &analysis.SuggestedFix{Message: "Drop the " + field + " option", TextEdits: []analysis.TextEdit{c.dropElement(lit, i)}}
		} else if v = c.translatedLevel(kv.Value); v == nil {
			continue
		}
		if ok(v) {
			continue
		}
		if serializable(v) && scope != nil {
			c.serializable = append(c.serializable, scopedPos{kv.Pos(), scope})
		}
		c.reportGo("DSQL009", kv.Pos(), kv.End(), rules.IsolationMessage(field+":", types.ExprString(kv.Value)), fix)
	}
}

// translatedLevel returns the driver's level a call of the package's own
// translation function returns for a constant argument
// (isolationToSQL(ReadCommitted), where a switch on the parameter returns
// sql.LevelReadCommitted in that case): the case holding the argument,
// else the default case, else the first statement after the switch,
// returns a constant. Nil when that is not how the function reads.
func (c *checker) translatedLevel(e ast.Expr) constant.Value {
	info := c.Pass.TypesInfo
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil
	}
	arg := info.Types[call.Args[0]].Value
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	fd := c.Funcs[fn]
	if arg == nil || fd == nil || fd.Body == nil || fd.Type.Params.NumFields() != 1 || len(fd.Type.Params.List[0].Names) != 1 {
		return nil
	}
	param := info.Defs[fd.Type.Params.List[0].Names[0]]
	returned := func(stmts []ast.Stmt) constant.Value {
		if len(stmts) == 0 {
			return nil
		}
		if r, ok := stmts[0].(*ast.ReturnStmt); ok && len(r.Results) == 1 {
			return info.Types[r.Results[0]].Value
		}
		return nil
	}
	for i, st := range fd.Body.List {
		sw, ok := st.(*ast.SwitchStmt)
		if !ok || sw.Init != nil || sw.Tag == nil {
			continue
		}
		if id, ok := ast.Unparen(sw.Tag).(*ast.Ident); !ok || info.Uses[id] != param {
			continue
		}
		var def *ast.CaseClause
		for _, s := range sw.Body.List {
			cc := s.(*ast.CaseClause)
			if cc.List == nil {
				def = cc
			}
			for _, x := range cc.List {
				if xv := info.Types[x].Value; xv != nil && xv.Kind() == arg.Kind() && constant.Compare(xv, token.EQL, arg) {
					return returned(cc.Body)
				}
			}
		}
		if def != nil {
			return returned(def.Body)
		}
		return returned(fd.Body.List[i+1:])
	}
	return nil
}

// dropElement deletes element i of a composite literal with its comma.
func (c *checker) dropElement(lit *ast.CompositeLit, i int) analysis.TextEdit {
	e := lit.Elts[i]
	if i+1 < len(lit.Elts) {
		return analysis.TextEdit{Pos: e.Pos(), End: lit.Elts[i+1].Pos()}
	}
	end := e.End()
	if src := c.Source(e.Pos()); src != nil {
		off := c.Pass.Fset.Position(end).Offset
		rest := src[off:]
		trimmed := strings.TrimLeft(string(rest), " \t")
		if strings.HasPrefix(trimmed, ",") {
			end += token.Pos(len(rest) - len(trimmed) + 1)
		}
	}
	if i > 0 {
		return analysis.TextEdit{Pos: lit.Elts[i-1].End(), End: end}
	}
	return analysis.TextEdit{Pos: e.Pos(), End: end}
}

// flow runs DSQL004 once every text is parsed.
func (c *checker) flow(scripts map[*sqltext.Text]*sqlparse.Script) {
	cfg := c.Settings.Cfg
	for _, q := range c.Queries {
		s := scripts[q.Text]
		if s == nil || !gosql.ExecMethods[q.Key] {
			continue
		}
		for _, st := range s.Stmts {
			if rules.IsCASWrite(cfg, st) {
				c.uncheckedCAS(q)
				break
			}
		}
	}
}

// pgSerializeMessage is how PostgreSQL words a serialization failure
// ("could not serialize access due to concurrent update"). Aurora DSQL's
// 40001 says "change conflicts with another transaction (OC000)".
const pgSerializeMessage = "could not serialize"

// messageOnlyConflict reports (DSQL012) a predicate's test of an error's
// text for PostgreSQL's wording of a serialization failure, when nothing
// in it tests the SQLSTATE: on Aurora DSQL it never matches, and the
// retry it drives never runs.
func (c *checker) messageOnlyConflict(body ast.Node) {
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn, _ := typeutil.Callee(c.Pass.TypesInfo, call).(*types.Func)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "strings" || len(call.Args) != 2 {
			return true
		}
		lit, ok := ast.Unparen(call.Args[1]).(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING || !strings.Contains(strings.ToLower(lit.Value), pgSerializeMessage) {
			return true
		}
		c.reportGo(rules.ConflictByMessage.ID, lit.Pos(), lit.End(), rules.ConflictByMessageMessage, nil)
		return true
	})
}
