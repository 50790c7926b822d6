package txcheck

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/sqlparse"
	"github.com/dsqllint/dsqllint/sqltext"
)

// DSQL104 across calls: statements that separate calls run on one
// transaction share it, and Aurora DSQL refuses DDL after DDL or DML, and
// DML after DDL, there (0A000). A Go migration runner is the usual shape:
// it begins a transaction, hands it to the migration (a function of a
// table of them), then records the version on it. The rule's own check
// sees one Exec string at a time; this one follows the transaction
// variable within a function and into the package functions and function
// literals it is handed to.

// txStmt is a DDL or DML statement run on a transaction.
type txStmt struct {
	st       *sqlparse.Statement
	pos, end token.Pos // of its keyword
	// call is the call of the judged function that runs it (itself, or
	// the call the transaction is handed to); via names what that call
	// hands the transaction to ("" when the function runs it itself).
	call *ast.CallExpr
	via  string
}

// txRun is one call of a function on a transaction: the DDL and DML
// statements it runs, in order.
type txRun struct {
	call  *ast.CallExpr
	via   string
	stmts []txStmt
	// loop is the loop that runs call again on the same transaction.
	loop ast.Node
}

// handedDepth bounds how deep calls handing a transaction on are followed.
const handedDepth = 3

// txStatements are the DDL and DML statements the package's functions run
// on transaction variables: what DSQL104 across calls and DSQL011 read.
type txStatements struct {
	*checker
	// direct are the statements each function runs itself on each
	// transaction variable, by call.
	direct map[ast.Node]map[types.Object][]txRun
	// txTypes are the types of the variables the package's Begins
	// assign: a project's own transaction type.
	txTypes map[types.Type]bool
}

// txPackages declare the drivers' transaction types. A type with Commit
// and Rollback is not enough: gorm's DB and xorm's Session have both and
// are as often a pool or a session outside any transaction.
var txPackages = map[string]bool{
	gosql.PkgSQL: true, "github.com/jmoiron/sqlx": true, "github.com/jackc/pgx/v4": true, gosql.PkgPGX: true,
	"github.com/jackc/pgx/v5/pgxpool": true, "github.com/jackc/pgx/v4/pgxpool": true, "github.com/uptrace/bun": true,
}

// transactionStatements gathers what each transaction variable runs, then
// reports DDL mixed across its calls (DSQL104) and its dropped Commit
// (DSQL011).
func (c *checker) transactionStatements(scripts map[*sqltext.Text]*sqlparse.Script) {
	d := &txStatements{checker: c, direct: map[ast.Node]map[types.Object][]txRun{}, txTypes: map[types.Type]bool{}}
	for _, b := range c.begins {
		if b.tx != nil {
			d.txTypes[b.tx.Type()] = true
		}
	}
	// A text a variable holds maps to its use; the literal's own text
	// maps each statement to where it is written.
	var literals map[token.Pos]*sqltext.Text
	for _, q := range c.Queries {
		s := scripts[q.Text]
		if s == nil || q.Scope == nil || c.InTest(q.Call.Pos()) {
			continue
		}
		obj := d.txVar(c.RunsOn(q))
		if obj == nil {
			continue
		}
		t := q.Text
		if at := firstOrigin(t); at.IsValid() {
			if literals == nil {
				literals = map[token.Pos]*sqltext.Text{}
				for _, p := range c.Parsed {
					if p.Text.Node != nil {
						literals[p.Text.Node.Pos()] = p.Text
					}
				}
			}
			if lit := literals[at]; lit != nil && lit.SQL == t.SQL {
				t = lit
			}
		}
		run := txRun{call: q.Call}
		for _, st := range s.Stmts {
			if st.Facts != nil && (st.Facts.Class == sqlparse.ClassDDL || st.Facts.Class == sqlparse.ClassDML) {
				run.stmts = append(run.stmts, txStmt{st: st, pos: t.Pos(st.KeywordSpan.Start, false), end: t.Pos(st.KeywordSpan.End, true), call: q.Call})
			}
		}
		if len(run.stmts) == 0 {
			continue
		}
		if len(q.Loops) > 0 && slices.ContainsFunc(run.stmts, func(st txStmt) bool { return st.st.Facts.Class == sqlparse.ClassDDL }) {
			run.loop = d.repeatingLoop(q.Loops, obj)
		}
		if d.direct[q.Scope] == nil {
			d.direct[q.Scope] = map[types.Object][]txRun{}
		}
		d.direct[q.Scope][obj] = append(d.direct[q.Scope][obj], run)
	}
	// A function that begins a transaction may only hand it on.
	scopes := map[ast.Node]map[types.Object]bool{}
	for scope, byObj := range d.direct {
		for obj := range byObj {
			addObj(scopes, scope, obj)
		}
	}
	begun := map[types.Object]int{}
	for _, b := range c.begins {
		if b.tx != nil && b.scope != nil && !c.InTest(b.call.Pos()) {
			addObj(scopes, b.scope, b.tx)
			begun[b.tx]++
		}
	}
	// What each function runs on each transaction, followed into the
	// calls it hands it to once, for both checks.
	runs := map[scopedObj][]txRun{}
	for _, scope := range sortedScopes(scopes) {
		for _, obj := range sortedObjs(scopes[scope]) {
			if begun[obj] < 2 { // a variable two Begins assign holds two transactions
				r := d.runs(scope, obj, handedDepth)
				runs[scopedObj{scope, obj}] = r
				d.judge(obj, r)
			}
		}
	}
	d.uncheckedCommits(begun, runs)
}

// scopedObj is a transaction variable as a function sees it.
type scopedObj struct {
	scope ast.Node
	obj   types.Object
}

// firstOrigin is where the one literal a text was assembled from starts.
func firstOrigin(t *sqltext.Text) token.Pos {
	if len(t.Origins) != 1 {
		return token.NoPos
	}
	return t.Origins[0][0]
}

func addObj(m map[ast.Node]map[types.Object]bool, scope ast.Node, obj types.Object) {
	if m[scope] == nil {
		m[scope] = map[types.Object]bool{}
	}
	m[scope][obj] = true
}

func sortedScopes(m map[ast.Node]map[types.Object]bool) []ast.Node {
	out := make([]ast.Node, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b ast.Node) int { return int(a.Pos() - b.Pos()) })
	return out
}

func sortedObjs(m map[types.Object]bool) []types.Object {
	out := make([]types.Object, 0, len(m))
	for o := range m {
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b types.Object) int { return int(a.Pos() - b.Pos()) })
	return out
}

// txVar returns the variable of a transaction type that h names: a local
// variable or a parameter, not a field (whose value may change between
// calls).
func (d *txStatements) txVar(h ast.Expr) types.Object {
	id, ok := ast.Unparen(h).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := d.Pass.TypesInfo.Uses[id].(*types.Var)
	if !ok || v.IsField() || v.Parent() == nil || v.Parent() == d.Pass.Pkg.Scope() {
		return nil
	}
	if d.txTypes[v.Type()] {
		return v
	}
	t := v.Type()
	if p, isPtr := t.(*types.Pointer); isPtr {
		t = p.Elem()
	}
	if n, isNamed := types.Unalias(t).(*types.Named); isNamed && n.Obj().Name() == "Tx" && n.Obj().Pkg() != nil && txPackages[n.Obj().Pkg().Path()] {
		return v
	}
	return nil
}

// runs returns what scope runs on obj, by call in source order: its own
// statements and those of the functions it hands obj to.
func (d *txStatements) runs(scope ast.Node, obj types.Object, depth int) []txRun {
	out := slices.Clone(d.direct[scope][obj])
	if depth > 0 {
		out = append(out, d.handed(scope, obj, depth)...)
	}
	slices.SortFunc(out, func(a, b txRun) int { return int(a.call.Pos() - b.call.Pos()) })
	return out
}

// handed returns, per call of scope that hands obj on, the statements the
// callee runs on it. A call of an element of a package table of function
// literals (migrations[v](tx)) may run any of them.
func (d *txStatements) handed(scope ast.Node, obj types.Object, depth int) []txRun {
	_, body := funcParts(scope)
	if body == nil {
		return nil
	}
	info := d.Pass.TypesInfo
	var out []txRun
	ast.Inspect(body, func(n ast.Node) bool {
		if _, isLit := n.(*ast.FuncLit); isLit {
			return false // its own scope: it may run later, or never
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		for i, a := range call.Args {
			id, isID := ast.Unparen(a).(*ast.Ident)
			if !isID || info.Uses[id] != obj {
				continue
			}
			run := txRun{call: call, via: types.ExprString(call.Fun)}
			for _, callee := range d.callees(call) {
				param := nthParam(info, callee, i)
				if param == nil {
					continue
				}
				for _, r := range d.runs(callee, param, depth-1) {
					for _, st := range r.stmts {
						st.call, st.via = call, run.via
						run.stmts = append(run.stmts, st)
					}
				}
			}
			if len(run.stmts) > 0 {
				out = append(out, run)
			}
		}
		return true
	})
	return out
}

// callees returns the bodies a call may run: a package function's, or
// each function literal of the package table whose element it calls.
func (d *txStatements) callees(call *ast.CallExpr) []ast.Node {
	info := d.Pass.TypesInfo
	if fn, ok := typeutil.Callee(info, call).(*types.Func); ok {
		if fd := d.Funcs[fn]; fd != nil {
			return []ast.Node{fd}
		}
		return nil
	}
	ix, ok := ast.Unparen(call.Fun).(*ast.IndexExpr)
	if !ok {
		return nil
	}
	id, ok := ast.Unparen(ix.X).(*ast.Ident)
	if !ok {
		return nil
	}
	lit, ok := d.Defs[info.Uses[id]].(*ast.CompositeLit)
	if !ok {
		return nil
	}
	var out []ast.Node
	for _, el := range lit.Elts {
		if kv, isKV := el.(*ast.KeyValueExpr); isKV {
			el = kv.Value
		}
		if fl, isLit := ast.Unparen(el).(*ast.FuncLit); isLit {
			out = append(out, fl)
		}
	}
	return out
}

// funcParts returns the type and body of a function declaration or
// literal (a scope), nil for another node.
func funcParts(fn ast.Node) (*ast.FuncType, *ast.BlockStmt) {
	switch f := fn.(type) {
	case *ast.FuncDecl:
		return f.Type, f.Body
	case *ast.FuncLit:
		return f.Type, f.Body
	}
	return nil, nil
}

// nthParam returns the i-th parameter of a function declaration or
// literal (the last one for a variadic tail).
func nthParam(info *types.Info, fn ast.Node, i int) types.Object {
	ft, _ := funcParts(fn)
	if ft == nil || ft.Params == nil {
		return nil
	}
	k := 0
	for _, field := range ft.Params.List {
		for _, name := range field.Names {
			if k == i {
				return info.Defs[name]
			}
			k++
		}
	}
	return nil
}

// judge reports the first statement of scope's runs on obj that Aurora
// DSQL refuses after an earlier call's: the transaction fails there.
func (d *txStatements) judge(obj types.Object, runs []txRun) {
	var ddl, dml *txStmt // the first of each that an earlier call ran
	for _, r := range runs {
		for i := range r.stmts {
			st := &r.stmts[i]
			var prior *txStmt
			switch st.st.Facts.Class {
			case sqlparse.ClassDDL:
				prior = ddl
				if prior == nil || dml != nil && dml.pos < prior.pos {
					prior = dml
				}
			case sqlparse.ClassDML:
				prior = ddl
			}
			if prior != nil && prior.call != st.call && !d.exclusive(prior.call, st.call) {
				d.reportMix(obj, prior, st)
				return
			}
		}
		for i := range r.stmts {
			st := &r.stmts[i]
			switch {
			case st.st.Facts.Class == sqlparse.ClassDDL && ddl == nil:
				ddl = st
			case st.st.Facts.Class == sqlparse.ClassDML && dml == nil:
				dml = st
			}
		}
		if r.loop != nil {
			// The loop's second round runs a DDL statement again.
			for i := range r.stmts {
				if st := &r.stmts[i]; st.st.Facts.Class == sqlparse.ClassDDL {
					d.reportLoop(obj, st, r.loop)
					return
				}
			}
		}
	}
}

// repeatingLoop returns the innermost loop statement around a call (of
// loops, the bodies of those in its function, innermost first) that runs
// it more than once on the transaction obj: one that obj was declared
// outside of, and not a range over a list of one element.
func (d *txStatements) repeatingLoop(loops []ast.Node, obj types.Object) ast.Node {
	for _, body := range loops {
		if body.Pos() <= obj.Pos() && obj.Pos() < body.End() {
			return nil // a transaction of each round
		}
		loop := body
		if f := d.FileOf(body.Pos()); f != nil {
			if path, _ := astutil.PathEnclosingInterval(f, body.Pos(), body.End()); len(path) > 1 {
				switch l := path[1].(type) {
				case *ast.RangeStmt:
					if lit := d.ListOf(l.X); lit != nil && len(lit.Elts) < 2 {
						continue
					}
					loop = l
				case *ast.ForStmt:
					loop = l
				}
			}
		}
		return loop
	}
	return nil
}

// reportLoop reports, at its call, a DDL statement a loop runs again on
// one transaction.
func (d *txStatements) reportLoop(obj types.Object, st *txStmt, loop ast.Node) {
	msg := "this " + st.st.Facts.Tag + " runs on the transaction " + obj.Name() + " in a loop: from its second run on, it follows a DDL statement on the same transaction: " +
		"Aurora DSQL allows one DDL statement per transaction (0A000 multiple ddl statements not supported in a transaction); commit in each round, or run each DDL statement in its own transaction"
	d.reportGo("DSQL104", st.call.Pos(), st.call.End(), msg, nil, analysis.RelatedInformation{Pos: loop.Pos(), Message: "the loop that runs it again"})
}

// exclusive reports calls of scope that no run makes both: in the two
// branches of an if, in two cases of a switch or select, or the first in
// an if's body that returns before the second.
func (d *txStatements) exclusive(a, b *ast.CallExpr) bool {
	f := d.FileOf(a.Pos())
	if f == nil {
		return false
	}
	pa, _ := astutil.PathEnclosingInterval(f, a.Pos(), a.End())
	pb, _ := astutil.PathEnclosingInterval(f, b.Pos(), b.End())
	slices.Reverse(pa)
	slices.Reverse(pb)
	k := 0
	for k < len(pa) && k < len(pb) && pa[k] == pb[k] {
		k++
	}
	if k == 0 || k >= len(pa) || k >= len(pb) {
		return false
	}
	switch p := pa[k-1].(type) {
	case *ast.IfStmt:
		return pa[k] != pb[k] && (pa[k] == p.Body || pa[k] == p.Else) && (pb[k] == p.Body || pb[k] == p.Else)
	case *ast.BlockStmt:
		_, caseA := pa[k].(*ast.CaseClause)
		_, commA := pa[k].(*ast.CommClause)
		if caseA || commA {
			return true // two clauses of one switch or select
		}
	}
	// a sits in an if's body that ends in a return, b after that if.
	for i := k; i+1 < len(pa); i++ {
		if is, ok := pa[i].(*ast.IfStmt); ok && pa[i+1] == is.Body && gosql.Terminates(is.Body) {
			return true
		}
	}
	return false
}

// reportMix reports st, or the call that runs it, as refused after prior
// on the transaction obj.
func (d *txStatements) reportMix(obj types.Object, prior, st *txStmt) {
	what := func(s *txStmt) string {
		tag := s.st.Facts.Tag
		if tag == "" {
			tag = "statement"
		}
		if s.via != "" {
			return "the " + tag + " that " + s.via + " runs on it (" + d.Where(s.pos) + ")"
		}
		return "the " + tag + " at " + d.Where(s.pos)
	}
	why := "Aurora DSQL does not mix schema changes and data changes in one transaction (0A000 ddl and dml are not supported in the same transaction); commit between them"
	if prior.st.Facts.Class == sqlparse.ClassDDL && st.st.Facts.Class == sqlparse.ClassDDL {
		why = "Aurora DSQL allows one DDL statement per transaction (0A000 multiple ddl statements not supported in a transaction); commit between them, or run each DDL statement in its own transaction"
	}
	pos, end := st.pos, st.end
	subject := "this " + st.st.Facts.Tag
	if st.via != "" {
		// The statement is in the callee, which other callers share: the
		// finding goes where this function hands the transaction on.
		pos, end = st.call.Pos(), st.call.End()
		subject = what(st)
	}
	msg := subject + " runs on the transaction " + obj.Name() + " after " + what(prior) + ": " + why
	d.reportGo("DSQL104", pos, end, msg, nil, analysis.RelatedInformation{Pos: prior.pos, End: prior.end, Message: "the earlier statement on the same transaction"})
}
