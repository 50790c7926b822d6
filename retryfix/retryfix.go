package retryfix

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/sqlparse"
	"github.com/dsqllint/dsqllint/txflow"
)

// TxRewrite is DSQL005's fix for one Begin: the transaction's function
// rewritten to run its statements in the OCC retry helper, or why no
// fix is offered.
type TxRewrite struct {
	Fix *analysis.SuggestedFix
	Pkg string // the helper's package, which the fix imports
	// Why no fix: "" when there is one.
	Why string
	// Needs are the functions of other packages the statements call: the
	// fix is exact only if each is (the module stage decides).
	Needs []txflow.Need
}

// refuse is a txRewrite offering no fix, and why.
func refuse(format string, args ...any) TxRewrite {
	return TxRewrite{Why: fmt.Sprintf(format, args...)}
}

// RewriteTx rewrites the function that begins b's transaction into
//
//	return occ.RunTxWithRetry(ctx, db, func(tx *sql.Tx) (T, error) {
//		... the statements between Begin and Commit ...
//		return result, nil
//	}, occ.WithTxOptions(opts))
//
// (occpgx for pgx; RunTxWithRetryVoid when the function returns only an
// error). It is offered only where the rewrite is exact: Begin, its error
// check, the deferred Rollback, the statements and the Commit are the
// function's own statements in that order, ending in its last return; the
// transaction does not escape; nothing between Begin and Commit does what
// a second attempt would repeat visibly (work outside the transaction,
// a goroutine, adding to what was declared before Begin).
func (c *Rewriter) RewriteTx(scope ast.Node, call *ast.CallExpr, pgx bool) TxRewrite {
	fd, ok := scope.(*ast.FuncDecl)
	if !ok || fd.Body == nil {
		return refuse("the transaction begins in a function literal")
	}
	info := c.Pass.TypesInfo
	list := fd.Body.List
	at := -1
	for i, st := range list {
		if a, ok := st.(*ast.AssignStmt); ok && len(a.Rhs) == 1 && a.Rhs[0] == call {
			at = i
		}
	}
	if at < 0 {
		return refuse("Begin is not a statement of its function's body")
	}
	begin := list[at].(*ast.AssignStmt)
	if begin.Tok != token.DEFINE || len(begin.Lhs) != 2 {
		return refuse("Begin does not declare its transaction and error")
	}
	txID, _ := begin.Lhs[0].(*ast.Ident)
	errID, _ := begin.Lhs[1].(*ast.Ident)
	if txID == nil || errID == nil || errID.Name == "_" || info.Defs[txID] == nil {
		return refuse("Begin does not declare its transaction and error")
	}
	tx, beginErr := info.Defs[txID], info.ObjectOf(errID)
	sqlx := !pgx && !gosql.IsNamed(tx.Type(), gosql.PkgSQL, "Tx", true) // run as the helper's *sql.Tx
	if at := c.escapes(fd.Body, tx); at != token.NoPos {
		return refuse("the transaction escapes at line %d (stored, returned or handed on)", c.Pass.Fset.Position(at).Line)
	}

	// The function: ... (T, error) or error, unnamed.
	res := fd.Type.Results
	if res == nil || len(res.List) == 0 || !gosql.IsError(info.TypeOf(res.List[len(res.List)-1].Type)) {
		return refuse("%s does not return an error", fd.Name.Name)
	}
	if len(res.List[0].Names) > 0 {
		return refuse("%s has named results", fd.Name.Name)
	}
	if res.NumFields() > 2 {
		return refuse("%s returns more than one value with its error", fd.Name.Name)
	}
	void := res.NumFields() == 1

	// Begin's receiver, context and options.
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return refuse("Begin is not a method call")
	}
	if !c.beginsTx(info.TypeOf(sel.X), pgx) {
		what := "database/sql's BeginTx(ctx, *sql.TxOptions)"
		if pgx {
			what = "pgx's BeginTx(ctx, pgx.TxOptions)"
		}
		return refuse("%s has no %s for the helper to begin each attempt with", c.SourceText(sel.X), what)
	}
	ctxText := ""
	var optArg ast.Expr
	switch {
	case len(call.Args) == 2:
		ctxText, optArg = c.SourceText(call.Args[0]), call.Args[1]
	case len(call.Args) == 1 && pgx:
		ctxText = c.SourceText(call.Args[0])
	case len(call.Args) == 0 && !pgx:
		ctxText = "context.Background()" // what Begin() begins with
	default:
		return refuse("Begin is called with arguments the helper does not take")
	}
	if id, ok := ast.Unparen(optArg).(*ast.Ident); ok && id.Name == "nil" {
		optArg = nil
	}

	// The error check, the deferred Rollback.
	next := at + 1
	if next >= len(list) || !c.errCheck(list[next], beginErr) {
		return refuse("Begin's error is not checked right after it")
	}
	next++
	if next < len(list) && c.deferredRollback(list[next], tx) {
		next++
	}

	// The Commit, and the last return.
	commit, last, ok := c.commitTail(list, next, tx, void)
	if !ok {
		return refuse("the transaction does not end in a Commit whose error is returned, then the function's last return")
	}
	body := list[next:commit]

	// What a retry repeats.
	dropped, needs, why := c.repeatable(fd, body, list[last], tx, beginErr, void, sqlx)
	if why != "" {
		return refuse("%s", why)
	}

	// The rewrite.
	src := c.Source(fd.Pos())
	file := c.FileOf(fd.Pos())
	if src == nil || file == nil {
		return refuse("no source")
	}
	off := func(p token.Pos) int { return c.Pass.Fset.Position(p).Offset }
	pkg, name := gosql.PkgOCC, "occ"
	txType, txPkg, txName := "*%s.Tx", gosql.PkgSQL, "sql"
	if pgx {
		pkg, name = gosql.PkgOCCPGX, "occpgx"
		txType, txPkg, txName = "%s.Tx", gosql.PkgPGX, "pgx"
	}
	var edits []analysis.TextEdit
	name, ok1 := c.addImport(file, &edits, pkg, name)
	txName, ok2 := c.addImport(file, &edits, txPkg, txName)
	ok3 := true
	if ctxText == "context.Background()" {
		var ctxName string
		ctxName, ok3 = c.addImport(file, &edits, "context", "context")
		ctxText = ctxName + ".Background()"
	}
	if !ok1 || !ok2 || !ok3 {
		return refuse("the file's imports would need more than one edit in one place")
	}
	var w strings.Builder
	helper := "RunTxWithRetry"
	results := "(" + c.SourceText(res.List[0].Type) + ", error)"
	if void {
		helper, results = "RunTxWithRetryVoid", "error"
	}
	fmt.Fprintf(&w, "return %s.%s(%s, %s, func(%s %s) %s {\n", name, helper, ctxText, c.SourceText(sel.X), txID.Name, fmt.Sprintf(txType, txName), results)
	if c.usedIn(beginErr, append(append([]ast.Stmt{}, body...), list[last:]...)) {
		w.WriteString("var " + errID.Name + " error\n")
	}
	// The statements as written, with the comments among them, from the
	// line after the Begin's check or the deferred Rollback to the Commit,
	// less the Rollbacks before error returns (the helper rolls back when
	// fn fails).
	from, to := off(list[next-1].End()), off(list[commit].Pos())
	for from < to && src[from] != '\n' {
		from++
	}
	for to > from && (src[to-1] == ' ' || src[to-1] == '\t' || src[to-1] == '\n') {
		to--
	}
	var kept [][2]int // the source the closure keeps
	if from < to {
		from++ // the newline, and the blank lines after it
		for blank := from; blank < to; blank++ {
			if src[blank] == '\n' {
				from = blank + 1
			} else if src[blank] != ' ' && src[blank] != '\t' {
				break
			}
		}
		sort.Slice(dropped, func(i, j int) bool { return dropped[i].Pos() < dropped[j].Pos() })
		for _, d := range dropped {
			w.Write(src[from:off(d.Pos())])
			kept = append(kept, [2]int{from, off(d.Pos())})
			from = off(d.End())
			// and the rest of its line, so that no blank line is left
			for from < len(src) && (src[from] == ' ' || src[from] == '\t') {
				from++
			}
			if from < len(src) && src[from] == '\n' {
				from++
				for from < len(src) && (src[from] == ' ' || src[from] == '\t') {
					from++
				}
			}
		}
		w.Write(src[from:to])
		kept = append(kept, [2]int{from, to})
		w.WriteString("\n")
	}
	if void && c.isReturnTxCommit(list[last], tx) {
		w.WriteString("return nil\n")
	} else {
		w.Write(src[off(list[last].Pos()):off(list[last].End())])
		kept = append(kept, [2]int{off(list[last].Pos()), off(list[last].End())})
		w.WriteString("\n")
	}
	w.WriteString("}")
	if optArg != nil {
		fmt.Fprintf(&w, ", %s.WithTxOptions(%s)", name, c.SourceText(optArg))
	}
	w.WriteString(")")
	edits = append(edits, analysis.TextEdit{Pos: begin.Pos(), End: list[last].End(), NewText: []byte(w.String())})
	// What the rewrite drops may have been an import's only use (the
	// fmt.Errorf of a Rollback's failure): the import goes too.
	inUse := map[string]bool{name: true, txName: true, strings.TrimSuffix(ctxText, ".Background()"): true}
	edits = append(edits, c.unusedImports(file, off(begin.Pos()), off(list[last].End()), kept, inUse, edits)...)
	return TxRewrite{
		Fix:   &analysis.SuggestedFix{Message: fmt.Sprintf("Run %s's transaction in %s.%s, which re-runs it from a fresh BEGIN on SQLSTATE 40001", fd.Name.Name, name, helper), TextEdits: edits},
		Pkg:   pkg,
		Needs: needs,
	}
}

// addImport is importName for a fix that may add several imports: the
// edit joins edits, an insertion after the same import as another one
// merged into it so that the edits never overlap. ok is false when two
// would rewrite one import declaration.
func (c *Rewriter) addImport(file *ast.File, edits *[]analysis.TextEdit, path, name string) (string, bool) {
	name, imp := c.ImportName(file, path, name)
	if imp == nil {
		return name, true
	}
	for i, e := range *edits {
		if e.Pos != imp.Pos {
			continue
		}
		if e.Pos != e.End || imp.Pos != imp.End {
			return "", false
		}
		(*edits)[i].NewText = append((*edits)[i].NewText, imp.NewText...)
		return name, true
	}
	*edits = append(*edits, *imp)
	return name, true
}

// escapes returns where the transaction is used other than as the
// receiver of its methods or an argument of a call (NoPos if nowhere).
func (c *Rewriter) escapes(body *ast.BlockStmt, tx types.Object) token.Pos {
	at := token.NoPos
	var stack []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		id, ok := n.(*ast.Ident)
		if !ok || c.Pass.TypesInfo.Uses[id] != tx || at != token.NoPos {
			return true
		}
		switch p := stack[len(stack)-2].(type) {
		case *ast.SelectorExpr:
			if p.X == id {
				return true
			}
		case *ast.CallExpr:
			for _, a := range p.Args {
				if a == id {
					return true
				}
			}
		}
		at = id.Pos()
		return true
	})
	return at
}

// unusedImports removes the imports of file whose every use lies in
// [from,to) outside kept, the source a rewrite drops (names: those the
// rewrite's own text uses). An import whose end an edit inserts at loses
// only its own text, so that the edits never overlap.
func (c *Rewriter) unusedImports(file *ast.File, from, to int, kept [][2]int, names map[string]bool, edits []analysis.TextEdit) []analysis.TextEdit {
	info := c.Pass.TypesInfo
	off := func(p token.Pos) int { return c.Pass.Fset.Position(p).Offset }
	dropped := func(at int) bool {
		if at < from || at >= to {
			return false
		}
		for _, k := range kept {
			if at >= k[0] && at < k[1] {
				return false
			}
		}
		return true
	}
	var out []analysis.TextEdit
	for _, decl := range file.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT || !g.Lparen.IsValid() {
			continue
		}
		for i, spec := range g.Specs {
			is := spec.(*ast.ImportSpec)
			pn, _ := info.Implicits[is].(*types.PkgName)
			if is.Name != nil {
				pn, _ = info.Defs[is.Name].(*types.PkgName)
			}
			if pn == nil || names[pn.Name()] {
				continue
			}
			uses, all := 0, true
			for id, obj := range info.Uses {
				if obj == types.Object(pn) {
					uses++
					all = all && dropped(off(id.Pos()))
				}
			}
			if uses == 0 || !all {
				continue
			}
			out = append(out, c.dropImport(g, i, edits))
		}
	}
	return out
}

// dropImport is the edit that removes the i'th import of g with the line
// break that joins it to its group: the one before it, or else the one
// after it. A blank line between groups stays, and so does the end of an
// import another edit inserts after.
func (c *Rewriter) dropImport(g *ast.GenDecl, i int, edits []analysis.TextEdit) analysis.TextEdit {
	src := c.Source(g.Pos())
	off := func(p token.Pos) int { return c.Pass.Fset.Position(p).Offset }
	joined := func(a, b token.Pos) bool { // no blank line between
		return src != nil && strings.Count(string(src[off(a):off(b)]), "\n") <= 1
	}
	is := g.Specs[i]
	if i > 0 && joined(g.Specs[i-1].End(), is.Pos()) {
		return analysis.TextEdit{Pos: g.Specs[i-1].End(), End: is.End()}
	}
	if i+1 < len(g.Specs) && joined(is.End(), g.Specs[i+1].Pos()) {
		insertedAfter := false
		for _, e := range edits {
			insertedAfter = insertedAfter || e.Pos == is.End()
		}
		if !insertedAfter {
			return analysis.TextEdit{Pos: is.Pos(), End: g.Specs[i+1].Pos()}
		}
	}
	if i > 0 {
		return analysis.TextEdit{Pos: g.Specs[i-1].End(), End: is.End()} // the group's only import, and the blank line before it
	}
	return analysis.TextEdit{Pos: is.Pos(), End: is.End()}
}

// beginsTx reports whether t has the BeginTx the helper calls:
// BeginTx(context.Context, *sql.TxOptions) (*sql.Tx, error), or pgx's
// BeginTx(context.Context, pgx.TxOptions) (pgx.Tx, error).
func (c *Rewriter) beginsTx(t types.Type, pgx bool) bool {
	if t == nil {
		return false
	}
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, "BeginTx")
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Type().(*types.Signature)
	if sig.Params().Len() != 2 || sig.Results().Len() != 2 || !gosql.IsNamed(sig.Params().At(0).Type(), "context", "Context", false) {
		return false
	}
	if pgx {
		return gosql.IsNamed(sig.Params().At(1).Type(), gosql.PkgPGX, "TxOptions", false) && gosql.IsNamed(sig.Results().At(0).Type(), gosql.PkgPGX, "Tx", false)
	}
	return gosql.IsNamed(sig.Params().At(1).Type(), gosql.PkgSQL, "TxOptions", true) && gosql.IsNamed(sig.Results().At(0).Type(), gosql.PkgSQL, "Tx", true)
}

// errCheck matches `if err != nil { return ... }`.
func (c *Rewriter) errCheck(st ast.Stmt, err types.Object) bool {
	is, ok := st.(*ast.IfStmt)
	if !ok || is.Init != nil || is.Else != nil || len(is.Body.List) != 1 {
		return false
	}
	if _, ok := is.Body.List[0].(*ast.ReturnStmt); !ok {
		return false
	}
	return c.isErrNotNil(is.Cond, err)
}

// isErrNotNil matches `err != nil` for the variable err.
func (c *Rewriter) isErrNotNil(e ast.Expr, err types.Object) bool {
	bin, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok || bin.Op != token.NEQ {
		return false
	}
	id, ok := bin.X.(*ast.Ident)
	nilID, ok2 := bin.Y.(*ast.Ident)
	return ok && ok2 && nilID.Name == "nil" && c.Pass.TypesInfo.ObjectOf(id) == err
}

// deferredRollback matches `defer tx.Rollback()` (with ctx for pgx), and
// `defer func() { _ = tx.Rollback() }()`.
func (c *Rewriter) deferredRollback(st ast.Stmt, tx types.Object) bool {
	d, ok := st.(*ast.DeferStmt)
	if !ok {
		return false
	}
	if c.txMethodCall(d.Call, tx, "Rollback") {
		return true
	}
	lit, ok := d.Call.Fun.(*ast.FuncLit)
	if !ok || len(d.Call.Args) != 0 || len(lit.Body.List) != 1 {
		return false
	}
	return c.rollbackStmt(lit.Body.List[0], tx)
}

// rollbackStmt matches `tx.Rollback()` and `_ = tx.Rollback()`.
func (c *Rewriter) rollbackStmt(st ast.Stmt, tx types.Object) bool {
	switch s := st.(type) {
	case *ast.ExprStmt:
		call, ok := s.X.(*ast.CallExpr)
		return ok && c.txMethodCall(call, tx, "Rollback")
	case *ast.AssignStmt:
		if len(s.Lhs) != 1 || len(s.Rhs) != 1 {
			return false
		}
		blank, ok := s.Lhs[0].(*ast.Ident)
		call, ok2 := s.Rhs[0].(*ast.CallExpr)
		return ok && ok2 && blank.Name == "_" && c.txMethodCall(call, tx, "Rollback")
	}
	return false
}

// rollbackCheck matches `if rbErr := tx.Rollback(); rbErr != nil {
// return ..., err }`: a Rollback whose own failure is returned with the
// error that caused it. The helper rolls back and drops that failure.
func (c *Rewriter) rollbackCheck(st ast.Stmt, tx types.Object) bool {
	is, ok := st.(*ast.IfStmt)
	if !ok || is.Init == nil || is.Else != nil || len(is.Body.List) != 1 {
		return false
	}
	a, ok := is.Init.(*ast.AssignStmt)
	if !ok || len(a.Lhs) != 1 || len(a.Rhs) != 1 {
		return false
	}
	call, ok := a.Rhs[0].(*ast.CallExpr)
	id, ok2 := a.Lhs[0].(*ast.Ident)
	if !ok || !ok2 || !c.txMethodCall(call, tx, "Rollback") || !c.isErrNotNil(is.Cond, c.Pass.TypesInfo.ObjectOf(id)) {
		return false
	}
	r, ok := is.Body.List[0].(*ast.ReturnStmt)
	return ok && len(r.Results) > 0 && !isNilIdent(r.Results[len(r.Results)-1])
}

// txMethodCall matches tx.name(...).
func (c *Rewriter) txMethodCall(call *ast.CallExpr, tx types.Object, name string) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && c.Pass.TypesInfo.ObjectOf(id) == tx
}

// commitTail finds, from list[from], the Commit and the function's last
// return: `if err := tx.Commit(); err != nil { return ... }` (or `=`),
// `err = tx.Commit()` then `if err != nil { return ... }`, each followed
// by the last return; or `return tx.Commit()` in a function returning
// only an error. It returns the index of the Commit's first statement
// and of the last return.
func (c *Rewriter) commitTail(list []ast.Stmt, from int, tx types.Object, void bool) (commit, last int, ok bool) {
	n := len(list)
	if n == 0 {
		return 0, 0, false
	}
	if _, isRet := list[n-1].(*ast.ReturnStmt); !isRet {
		return 0, 0, false
	}
	if void && c.isReturnTxCommit(list[n-1], tx) {
		return n - 1, n - 1, n-1 >= from
	}
	if n-2 >= from {
		if is, ok := list[n-2].(*ast.IfStmt); ok && is.Init != nil && is.Else == nil && len(is.Body.List) == 1 {
			if a, ok := is.Init.(*ast.AssignStmt); ok && len(a.Lhs) == 1 && len(a.Rhs) == 1 && c.commitCall(a.Rhs[0], tx) {
				if id, ok := a.Lhs[0].(*ast.Ident); ok && c.isErrNotNil(is.Cond, c.Pass.TypesInfo.ObjectOf(id)) {
					if _, ret := is.Body.List[0].(*ast.ReturnStmt); ret {
						return n - 2, n - 1, true
					}
				}
			}
		}
	}
	if n-3 >= from {
		if a, ok := list[n-3].(*ast.AssignStmt); ok && len(a.Lhs) == 1 && len(a.Rhs) == 1 && c.commitCall(a.Rhs[0], tx) {
			if id, ok := a.Lhs[0].(*ast.Ident); ok && c.errCheck(list[n-2], c.Pass.TypesInfo.ObjectOf(id)) {
				return n - 3, n - 1, true
			}
		}
	}
	return 0, 0, false
}

// commitCall matches tx.Commit() (tx.Commit(ctx) for pgx).
func (c *Rewriter) commitCall(e ast.Expr, tx types.Object) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	return ok && c.txMethodCall(call, tx, "Commit")
}

// isReturnTxCommit matches `return tx.Commit()`.
func (c *Rewriter) isReturnTxCommit(st ast.Stmt, tx types.Object) bool {
	r, ok := st.(*ast.ReturnStmt)
	return ok && len(r.Results) == 1 && c.commitCall(r.Results[0], tx)
}

// usedIn reports whether obj is used in the statements.
func (c *Rewriter) usedIn(obj types.Object, stmts []ast.Stmt) bool {
	used := false
	for _, st := range stmts {
		ast.Inspect(st, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && c.Pass.TypesInfo.Uses[id] == obj {
				used = true
			}
			return !used
		})
	}
	return used
}

// repeatable checks what a retry would repeat: the statements between
// Begin and Commit, and the last return. It returns the Rollbacks to
// drop (each just before a return of an error), or why the rewrite is
// not exact.
func (c *Rewriter) repeatable(fd *ast.FuncDecl, body []ast.Stmt, last ast.Stmt, tx, beginErr types.Object, void, sqlx bool) (dropped []ast.Stmt, needs []txflow.Need, why string) {
	info := c.Pass.TypesInfo
	line := func(n ast.Node) int { return c.Pass.Fset.Position(n.Pos()).Line }
	inside := func(obj types.Object) bool {
		// declared between Begin and Commit: made afresh by each attempt
		for _, st := range body {
			if obj.Pos() >= st.Pos() && obj.Pos() < st.End() {
				return true
			}
		}
		return obj == beginErr
	}
	params := map[types.Object]bool{}
	for _, f := range fd.Type.Params.List {
		for _, n := range f.Names {
			params[info.Defs[n]] = true
		}
	}
	// Rollbacks just before an error return.
	var lists [][]ast.Stmt
	for _, st := range body {
		ast.Inspect(st, func(n ast.Node) bool {
			switch b := n.(type) {
			case *ast.BlockStmt:
				lists = append(lists, b.List)
			case *ast.CaseClause:
				lists = append(lists, b.Body)
			case *ast.FuncLit:
				return false
			}
			return true
		})
	}
	lists = append(lists, body)
	drop := map[ast.Stmt]bool{}
	for _, l := range lists {
		for i, st := range l {
			if !c.rollbackStmt(st, tx) && !c.rollbackCheck(st, tx) {
				continue
			}
			if i+1 < len(l) {
				if r, ok := l[i+1].(*ast.ReturnStmt); ok && len(r.Results) > 0 && !isNilIdent(r.Results[len(r.Results)-1]) {
					drop[st] = true
					dropped = append(dropped, st)
					continue
				}
			}
			return nil, nil, fmt.Sprintf("the transaction is rolled back at line %d other than before an error return", line(st))
		}
	}
	var stack []ast.Node
	writes := c.writes(body, tx, params)
	// visit judges n, atop stack; false when the rewrite is not exact.
	visit := func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.GoStmt:
			why = fmt.Sprintf("a goroutine starts at line %d, between Begin and Commit", line(s))
		case *ast.DeferStmt:
			// rows.Close() and its kin: in the closure they run at the end
			// of each attempt, before the helper commits.
			if w, need := c.callRepeatable(s.Call, tx, params, line); w != "" || need != nil || !c.readsResult(s.Call) {
				why = fmt.Sprintf("work is deferred at line %d, between Begin and Commit", line(s))
			}
		case *ast.ReturnStmt:
			if inFuncLit(stack) || s == last {
				break
			}
			switch {
			case !void && len(s.Results) == 2 && !isNilIdent(s.Results[1]) && !isZeroValue(info, s.Results[0]):
				why = fmt.Sprintf("line %d returns a value with an error, and the helper returns the zero value then", line(s))
			case len(s.Results) > 0 && isNilIdent(s.Results[len(s.Results)-1]):
				// Without Commit the function rolled back: the helper
				// would commit what was written before, unless that wrote
				// nothing.
				var before []*ast.CallExpr
				for _, w := range writes {
					if w.Pos() < s.Pos() {
						before = append(before, w)
					}
				}
				if len(before) > 0 && !(len(before) == 1 && c.wroteNothing(stack, before[0], body)) {
					why = fmt.Sprintf("line %d returns without an error before the Commit, after line %d may have written: the helper would commit that write, which the function rolls back",
						line(s), line(before[0]))
				}
			}
		case *ast.Ident:
			if info.Uses[s] == tx && !inDropped(stack, drop) {
				why = c.txUse(stack, sqlx)
			}
		case *ast.CallExpr:
			var need *txflow.Need
			why, need = c.callRepeatable(s, tx, params, line)
			if need != nil {
				needs = append(needs, *need)
			}
		case *ast.SendStmt:
			why = fmt.Sprintf("line %d sends on a channel between Begin and Commit", line(s))
		case *ast.AssignStmt:
			why = c.outerAssign(s.Lhs, s.Rhs, s.Tok, inside, line, "before Begin")
		case *ast.IncDecStmt:
			why = c.outerAssign([]ast.Expr{s.X}, nil, s.Tok, inside, line, "before Begin")
		}
		return why == ""
	}
	visited := append([]ast.Stmt{}, body...)
	if !c.isReturnTxCommit(last, tx) {
		visited = append(visited, last)
		// After the Commit the function may only succeed: an error there
		// would make the helper roll back what the function committed.
		if r := last.(*ast.ReturnStmt); len(r.Results) == 0 || !isNilIdent(r.Results[len(r.Results)-1]) {
			return nil, nil, fmt.Sprintf("line %d returns an error after the Commit, and the helper would roll back instead", line(last))
		}
	}
	for _, st := range visited {
		stack = stack[:0]
		ast.Inspect(st, func(n ast.Node) bool {
			switch {
			case n == nil:
				stack = stack[:len(stack)-1]
				return true
			case why != "":
				return false
			}
			stack = append(stack, n)
			if !visit(n) {
				stack = stack[:len(stack)-1] // (Inspect sends no nil for a node it does not enter)
				return false
			}
			return true
		})
		if why != "" {
			return nil, nil, why
		}
	}
	if c.usedIn(tx, []ast.Stmt{last}) && !c.isReturnTxCommit(last, tx) {
		return nil, nil, "the transaction is used after its Commit"
	}
	return dropped, needs, ""
}

// writes are the calls by which the statements may write: a statement
// on the transaction that is no SELECT of a constant text, a function the
// transaction is handed to, the helper's fn.
func (c *Rewriter) writes(body []ast.Stmt, tx types.Object, params map[types.Object]bool) []*ast.CallExpr {
	info := c.Pass.TypesInfo
	var calls []*ast.CallExpr
	note := func(call *ast.CallExpr) { calls = append(calls, call) }
	for _, st := range body {
		ast.Inspect(st, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && info.Uses[id] == tx {
					if !strings.HasPrefix(sel.Sel.Name, "Query") || !c.selectText(call) {
						note(call)
					}
					return true
				}
			}
			if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && params[info.Uses[id]] {
				note(call)
				return true
			}
			for _, a := range call.Args {
				if id, ok := ast.Unparen(a).(*ast.Ident); ok && info.Uses[id] == tx {
					note(call)
				}
			}
			return true
		})
	}
	return calls
}

// wroteNothing reports whether a return, after the one write before it,
// is reached only when that write changed no row: it sits in the branch
// of `n == 0` where n is the write's RowsAffected (res.RowsAffected(), or
// a variable assigned from it).
func (c *Rewriter) wroteNothing(stack []ast.Node, write *ast.CallExpr, body []ast.Stmt) bool {
	info := c.Pass.TypesInfo
	// the write's result variable
	var res types.Object
	for _, st := range body {
		ast.Inspect(st, func(n ast.Node) bool {
			if a, ok := n.(*ast.AssignStmt); ok && len(a.Rhs) == 1 && a.Rhs[0] == write && len(a.Lhs) > 0 {
				if id, ok := a.Lhs[0].(*ast.Ident); ok {
					res = info.ObjectOf(id)
				}
			}
			return res == nil
		})
	}
	if res == nil {
		return false
	}
	rowsAffected := func(e ast.Expr) bool {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		id, ok := sel.X.(*ast.Ident)
		return ok && sel.Sel.Name == "RowsAffected" && info.Uses[id] == res
	}
	counts := func(e ast.Expr) bool {
		if rowsAffected(e) {
			return true
		}
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return false
		}
		obj := info.Uses[id]
		found := false
		for _, st := range body {
			ast.Inspect(st, func(n ast.Node) bool {
				if a, ok := n.(*ast.AssignStmt); ok && len(a.Rhs) == 1 && rowsAffected(a.Rhs[0]) && len(a.Lhs) > 0 {
					if l, ok := a.Lhs[0].(*ast.Ident); ok && info.ObjectOf(l) == obj {
						found = true
					}
				}
				return !found
			})
		}
		return found
	}
	for i := len(stack) - 1; i > 0; i-- {
		is, ok := stack[i-1].(*ast.IfStmt)
		if !ok || stack[i] != is.Body {
			continue
		}
		bin, ok := ast.Unparen(is.Cond).(*ast.BinaryExpr)
		if !ok || bin.Op != token.EQL {
			continue
		}
		zero := func(e ast.Expr) bool { l, ok := ast.Unparen(e).(*ast.BasicLit); return ok && l.Value == "0" }
		if zero(bin.Y) && counts(bin.X) || zero(bin.X) && counts(bin.Y) {
			return true
		}
	}
	return false
}

// selectText reports a query call whose text, as the package's analysis
// parsed it, is a SELECT that changes no data.
func (c *Rewriter) selectText(call *ast.CallExpr) bool {
	for _, q := range c.Queries {
		if q.Call != call {
			continue
		}
		script := c.Scripts[q.Text]
		if script == nil || len(script.Stmts) == 0 {
			return false
		}
		for _, st := range script.Stmts {
			if st.Kind != sqlparse.KindSelect || st.Write != nil {
				return false // a write, or a CTE that writes
			}
		}
		return true
	}
	return false
}

func inFuncLit(stack []ast.Node) bool {
	for _, n := range stack[:len(stack)-1] {
		if _, ok := n.(*ast.FuncLit); ok {
			return true
		}
	}
	return false
}

// inDropped reports whether the node atop stack is in a statement the
// rewrite drops.
func inDropped(stack []ast.Node, drop map[ast.Stmt]bool) bool {
	for _, n := range stack {
		if st, ok := n.(ast.Stmt); ok && drop[st] {
			return true
		}
	}
	return false
}

func isNilIdent(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && id.Name == "nil"
}

// isZeroValue reports a literal zero value: nil, 0, "", false, T{}.
func isZeroValue(info *types.Info, e ast.Expr) bool {
	switch v := ast.Unparen(e).(type) {
	case *ast.Ident:
		return v.Name == "nil" || v.Name == "false"
	case *ast.BasicLit:
		return v.Value == "0" || v.Value == `""` || v.Value == "``" || v.Value == "0.0"
	case *ast.CompositeLit:
		return len(v.Elts) == 0
	}
	return false
}

// txUse judges a use of the transaction as the receiver of its methods
// or an argument of a call (which callRepeatable judges). A sqlx
// transaction becomes the helper's *sql.Tx: only the methods it promotes
// from *sql.Tx, and parameters of that type, will do.
func (c *Rewriter) txUse(stack []ast.Node, sqlx bool) string {
	id := stack[len(stack)-1]
	line := c.Pass.Fset.Position(id.Pos()).Line
	switch p := stack[len(stack)-2].(type) {
	case *ast.SelectorExpr:
		if p.Sel.Name == "Commit" || p.Sel.Name == "Rollback" {
			return fmt.Sprintf("the transaction is committed or rolled back at line %d, between Begin and Commit", line)
		}
		if sel := c.Pass.TypesInfo.Selections[p]; sqlx && (sel == nil || !gosql.IsNamed(sel.Obj().(*types.Func).Type().(*types.Signature).Recv().Type(), gosql.PkgSQL, "Tx", true)) {
			return fmt.Sprintf("line %d calls sqlx's %s, which the helper's *sql.Tx does not have", line, p.Sel.Name)
		}
	case *ast.CallExpr:
		for i, a := range p.Args {
			if sig, ok := c.Pass.TypesInfo.TypeOf(p.Fun).(*types.Signature); a == id && sqlx && ok && i < sig.Params().Len() && !gosql.IsNamed(sig.Params().At(i).Type(), gosql.PkgSQL, "Tx", true) {
				return fmt.Sprintf("line %d hands the sqlx transaction to a function that wants more than *sql.Tx", line)
			}
		}
	}
	return "" // any other use is an escape, refused before (escapes)
}

// callRepeatable judges a call a retry would repeat: statements on the
// transaction, reading their results, computation that changes nothing
// outside, a function of the module that does only that, or the function
// a transaction helper was handed (the callers' closures, which the
// retry re-runs whole). A function of another package of the module is
// returned as a need: the module stage knows what it does.
func (c *Rewriter) callRepeatable(call *ast.CallExpr, tx types.Object, params map[types.Object]bool, line func(ast.Node) int) (string, *txflow.Need) {
	info := c.Pass.TypesInfo
	if tv, ok := info.Types[call.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
		return c.builtinRepeatable(call, func(types.Object) bool { return false }, line), nil
	}
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && params[info.Uses[id]] {
		return "", nil // fn(tx): the body the helper's callers hand it
	}
	if _, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok {
		return "", nil // its body is visited
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
		if id, ok := sel.X.(*ast.Ident); ok && info.Uses[id] == tx {
			return "", nil // a statement on the transaction
		}
	}
	if sig, ok := info.TypeOf(call.Fun).(*types.Signature); ok && errorWrapper(sig) {
		return "", nil
	}
	fn, _, ok := gosql.CalleeOf(info, call)
	if !ok {
		return fmt.Sprintf("line %d calls a function value, which a retry would call again", line(call)), nil
	}
	why, needs := c.FuncRepeatable(fn, map[*types.Func]bool{})
	if why != "" {
		if c.Funcs[fn] == nil {
			return fmt.Sprintf("line %d calls %s.%s between Begin and Commit: a retry would repeat it, and dsqllint cannot show it has no effect outside the transaction", line(call), fn.Pkg().Name(), fn.Name()), nil
		}
		return fmt.Sprintf("line %d calls %s, which %s", line(call), fn.Name(), why), nil
	}
	if len(needs) > 0 {
		// one need stands for the call: the first the module must clear
		n := needs[0]
		n.Line = line(call)
		return "", &n
	}
	return "", nil
}

// FuncRepeatable says what a retry repeating a call of fn would repeat:
// why it is not harmless, or the functions of other packages it rests
// on (neither: harmless). A function of another package of the module
// is itself the need; one of the standard library or of a driver is
// harmless only if pureCall says so.
func (c *Rewriter) FuncRepeatable(fn *types.Func, visiting map[*types.Func]bool) (string, []txflow.Need) {
	if pureCall(fn) || txStatement(fn) || gosql.IsInterfaceMethod(fn) && scanMethod(fn) || errorWrapper(fn.Type().(*types.Signature)) {
		return "", nil
	}
	fd := c.Funcs[fn]
	if fd == nil || fd.Body == nil {
		if fn.Pkg() == nil || fn.Pkg() == c.Pass.Pkg || stdPath(fn.Pkg().Path()) || knownLibrary(fn.Pkg().Path()) || gosql.IsInterfaceMethod(fn) {
			return "does more than statements on the transaction and computation", nil
		}
		return "", []txflow.Need{{Func: c.Key(fn), Name: fn.Pkg().Name() + "." + fn.Name()}}
	}
	if e, ok := c.effects[fn]; ok {
		return e.why, e.needs
	}
	if visiting[fn] {
		return "", nil // recursion: judged by the rest of its body
	}
	visiting[fn] = true
	why, needs := c.bodyRepeatable(fd, visiting)
	if c.effects == nil {
		c.effects = map[*types.Func]funcEffects{}
	}
	c.effects[fn] = funcEffects{why, needs}
	return why, needs
}

// readsResult reports a method call on a statement's result (rows.Close,
// stmt.Close): what may be deferred in the closure.
func (c *Rewriter) readsResult(call *ast.CallExpr) bool {
	fn, _, ok := gosql.CalleeOf(c.Pass.TypesInfo, call)
	return ok && fn.Type().(*types.Signature).Recv() != nil && pureCall(fn)
}

// errorWrapper reports a function that makes an error of an error:
// fmt.Errorf's kin in every error library (errors.Wrap,
// stacktrace.Propagate), a value a retry makes again.
func errorWrapper(sig *types.Signature) bool {
	if sig.Recv() != nil || sig.Results().Len() != 1 || !gosql.IsError(sig.Results().At(0).Type()) {
		return false
	}
	for i := 0; i < sig.Params().Len(); i++ {
		if gosql.IsError(sig.Params().At(i).Type()) {
			return true
		}
	}
	return false
}

// scanMethod reports an interface's Scan(dest ...any) error: the row a
// statement returned, read.
func scanMethod(fn *types.Func) bool {
	sig := fn.Type().(*types.Signature)
	return fn.Name() == "Scan" && sig.Variadic() && sig.Results().Len() == 1 && gosql.IsError(sig.Results().At(0).Type())
}

// funcEffects is what funcRepeatable found for a function.
type funcEffects struct {
	why   string
	needs []txflow.Need
}

// knownLibrary reports a package whose functions are not the module's:
// drivers, ORMs, builders.
func knownLibrary(path string) bool {
	for _, p := range []string{gosql.PkgSQLX, "github.com/jackc/", "gorm.io/", "github.com/uptrace/bun", "github.com/Masterminds/squirrel",
		"github.com/lib/pq", "github.com/go-sql-driver/", "go.opentelemetry.io/", "github.com/prometheus/", "go.uber.org/", "github.com/sirupsen/"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// bodyRepeatable judges a function of the package by its body: no
// goroutine, no send, no adding to what it did not declare, and only
// calls that are themselves repeatable.
func (c *Rewriter) bodyRepeatable(fd *ast.FuncDecl, visiting map[*types.Func]bool) (string, []txflow.Need) {
	info := c.Pass.TypesInfo
	line := func(n ast.Node) int { return c.Pass.Fset.Position(n.Pos()).Line }
	inside := func(obj types.Object) bool {
		// declared in the body (a parameter's own variable too, not what
		// it points to)
		return obj.Pos() >= fd.Pos() && obj.Pos() < fd.End() && obj.Parent() != nil
	}
	var why string
	var needs []txflow.Need
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if why != "" {
			return false
		}
		switch s := n.(type) {
		case *ast.GoStmt:
			why = fmt.Sprintf("starts a goroutine (line %d)", line(s))
		case *ast.SendStmt:
			why = fmt.Sprintf("sends on a channel (line %d)", line(s))
		case *ast.AssignStmt:
			why = c.outerAssign(s.Lhs, s.Rhs, s.Tok, inside, line, "outside it")
		case *ast.IncDecStmt:
			why = c.outerAssign([]ast.Expr{s.X}, nil, s.Tok, inside, line, "outside it")
		case *ast.CallExpr:
			if tv, ok := info.Types[s.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
				why = c.builtinRepeatable(s, inside, line)
				break
			}
			if _, ok := ast.Unparen(s.Fun).(*ast.FuncLit); ok {
				break
			}
			if sig, ok := info.TypeOf(s.Fun).(*types.Signature); ok && errorWrapper(sig) {
				break
			}
			fn, _, ok := gosql.CalleeOf(info, s)
			if !ok {
				why = fmt.Sprintf("calls a function value (line %d)", line(s))
				break
			}
			w, ns := c.FuncRepeatable(fn, visiting)
			if w != "" {
				why = fmt.Sprintf("calls %s (line %d), which %s", fn.Name(), line(s), w)
			}
			needs = append(needs, ns...)
		}
		return why == ""
	})
	if why != "" {
		return why, nil
	}
	return "", needs
}

// builtinRepeatable judges the builtins that change what they are
// given: delete, close, clear and copy into what was not made here.
func (c *Rewriter) builtinRepeatable(call *ast.CallExpr, inside func(types.Object) bool, line func(ast.Node) int) string {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok || len(call.Args) == 0 {
		return ""
	}
	switch id.Name {
	case "delete", "close", "clear", "copy":
		if root := rootIdent(call.Args[0]); root != nil {
			if obj := c.Pass.TypesInfo.ObjectOf(root); obj != nil && inside(obj) {
				return ""
			}
		}
		return fmt.Sprintf("line %d calls %s on what a retry would find changed", line(call), id.Name)
	}
	return ""
}

// txStatement reports a method of a transaction (not Commit or Rollback).
func txStatement(fn *types.Func) bool {
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil || fn.Name() == "Commit" || fn.Name() == "Rollback" {
		return false
	}
	t := recv.Type()
	return gosql.IsNamed(t, gosql.PkgSQL, "Tx", true) || gosql.IsNamed(t, gosql.PkgPGX, "Tx", false) || gosql.IsNamed(t, gosql.PkgSQLX, "Tx", true)
}

// pureCall reports a function or method that changes nothing a retry
// would repeat visibly: reading a statement's results, and the standard
// library's computation.
func pureCall(fn *types.Func) bool {
	path := fn.Pkg().Path()
	if recv := fn.Type().(*types.Signature).Recv(); recv != nil {
		t := recv.Type()
		for _, r := range [][2]string{{gosql.PkgSQL, "Rows"}, {gosql.PkgSQL, "Row"}, {gosql.PkgSQL, "Result"}, {gosql.PkgSQLX, "Rows"}, {gosql.PkgSQLX, "Row"}} {
			if gosql.IsNamed(t, r[0], r[1], true) || gosql.IsNamed(t, r[0], r[1], false) {
				return true
			}
		}
		if txStatement(fn) {
			return true
		}
		switch path {
		case gosql.PkgPGX, "github.com/jackc/pgx/v5/pgconn", "github.com/jackc/pgx/v5/pgtype":
			// Rows, Row, CommandTag, values; not a pool's or a
			// connection's statements.
			name := ""
			if n, ok := types.Unalias(derefType(t)).(*types.Named); ok {
				name = n.Obj().Name()
			}
			return name != "Conn" && name != "PgConn" && name != "Batch"
		}
	}
	switch path {
	case "errors", "strings", "strconv", "bytes", "unicode", "unicode/utf8", "unicode/utf16", "math", "math/big", "sort", "slices", "maps", "context",
		"encoding/json", "encoding/hex", "encoding/base64", "encoding/binary", "path", "path/filepath", "regexp", "time", "net/netip", "net/url",
		"crypto/sha256", "crypto/sha512", "crypto/sha1", "crypto/md5", "crypto/subtle", "hash/fnv", "hash/crc32",
		"github.com/google/uuid", "github.com/jackc/pgx/v5/pgtype":
		return fn.Name() != "Sleep"
	case "fmt":
		return strings.HasPrefix(fn.Name(), "Sprint") || fn.Name() == "Errorf" || strings.HasPrefix(fn.Name(), "Sscan")
	case "reflect":
		// reading and making values, not setting or calling them
		return !strings.HasPrefix(fn.Name(), "Set") && fn.Name() != "Send" && fn.Name() != "Close" && !strings.HasPrefix(fn.Name(), "Call")
	case "sync":
		// a lock taken and given back: a retry takes it again
		return fn.Name() == "Lock" || fn.Name() == "Unlock" || fn.Name() == "RLock" || fn.Name() == "RUnlock"
	case gosql.PkgPGX:
		return fn.Name() == "CollectRows" || fn.Name() == "CollectOneRow" || fn.Name() == "CollectExactlyOneRow" ||
			strings.HasPrefix(fn.Name(), "RowTo") || fn.Name() == "ForEachRow" || fn.Name() == "NamedArgs"
	}
	return false
}

func derefType(t types.Type) types.Type {
	if p, ok := t.(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// outerAssign judges an assignment a retry would repeat: overwriting a
// variable declared before Begin is harmless (the last attempt's value
// stays), adding to one is not (x += 1, x++, x = append(x, ...)).
func (c *Rewriter) outerAssign(lhs, rhs []ast.Expr, tok token.Token, inside func(types.Object) bool, line func(ast.Node) int, outside string) string {
	info := c.Pass.TypesInfo
	for _, l := range lhs {
		root := rootIdent(l)
		if root == nil || root.Name == "_" {
			continue
		}
		obj := info.ObjectOf(root)
		if obj == nil || inside(obj) || tok == token.DEFINE && info.Defs[root] != nil {
			continue
		}
		accumulates := tok != token.ASSIGN && tok != token.DEFINE
		for _, r := range rhs {
			ast.Inspect(r, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && info.Uses[id] == obj {
					accumulates = true
				}
				return !accumulates
			})
		}
		if accumulates {
			return fmt.Sprintf("line %d adds to %s, declared %s: a retry would add again", line(l), root.Name, outside)
		}
	}
	return ""
}

// rootIdent is the variable an assigned expression starts from: x in x,
// x.f, x[i], *x.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch v := e.(type) {
		case *ast.Ident:
			return v
		case *ast.SelectorExpr:
			e = v.X
		case *ast.IndexExpr:
			e = v.X
		case *ast.StarExpr:
			e = v.X
		case *ast.ParenExpr:
			e = v.X
		default:
			return nil
		}
	}
}

// StatementRetry is DSQL005's fix for a lock run on a pool, outside any
// transaction: the statement re-run on 40001 by the runtime.
//
//	db.ExecContext(ctx, q, args...)            → occ.ExecWithRetry(ctx, db, q, args...)
//	pool.Exec(ctx, q, args...)                 → occpgx.ExecWithRetry(ctx, pool, q, args...)
//	db.QueryRowContext(ctx, q, a...).Scan(&x)  → occ.RunTxWithRetryVoid(ctx, db, func(tx *sql.Tx) error {
//	                                                 return tx.QueryRowContext(ctx, q, a...).Scan(&x) })
//
// Each has the type of what it replaces; the Scan's destinations are
// written again by a second attempt, the last one's values stay. The
// edits leave the statement's text alone, for the fixes of its SQL.
func (c *Rewriter) StatementRetry(q *gosql.Query, pgx bool) *analysis.SuggestedFix {
	sel, ok := q.Call.Fun.(*ast.SelectorExpr)
	if !ok || len(q.Call.Args) < 2 || c.Generated[c.FileOf(q.Call.Pos())] || !c.beginsTx(c.Pass.TypesInfo.TypeOf(sel.X), pgx) {
		return nil
	}
	file := c.FileOf(q.Call.Pos())
	pkg, name, txPkg, txName, txType := gosql.PkgOCC, "occ", gosql.PkgSQL, "sql", "*%s.Tx"
	exec, queryRow := "ExecContext", "QueryRowContext"
	if pgx {
		pkg, name, txPkg, txName, txType = gosql.PkgOCCPGX, "occpgx", gosql.PkgPGX, "pgx", "%s.Tx"
		exec, queryRow = "Exec", "QueryRow"
	}
	if !c.CanImport(pkg) {
		return nil
	}
	var edits []analysis.TextEdit
	name, _ = c.addImport(file, &edits, pkg, name) // (the first import always fits)
	ctx, recv := c.SourceText(q.Call.Args[0]), c.SourceText(sel.X)
	switch sel.Sel.Name {
	case exec:
		edits = append(edits, analysis.TextEdit{Pos: sel.Pos(), End: q.Call.Args[0].End(), NewText: []byte(name + ".ExecWithRetry(" + ctx + ", " + recv)})
		return &analysis.SuggestedFix{Message: "Run the statement with " + name + ".ExecWithRetry, which re-runs it on SQLSTATE 40001", TextEdits: edits}
	case queryRow:
		scan := c.scanOf(q.Call)
		if scan == nil || usesName(q.Call, "tx") {
			return nil
		}
		txName, ok := c.addImport(file, &edits, txPkg, txName)
		if !ok {
			return nil
		}
		open := fmt.Sprintf("%s.RunTxWithRetryVoid(%s, %s, func(tx %s) error { return tx.%s", name, ctx, recv, fmt.Sprintf(txType, txName), queryRow)
		edits = append(edits,
			analysis.TextEdit{Pos: sel.Pos(), End: sel.End(), NewText: []byte(open)},
			analysis.TextEdit{Pos: scan.End(), End: scan.End(), NewText: []byte(" })")})
		return &analysis.SuggestedFix{Message: "Run the statement and its Scan in " + name + ".RunTxWithRetryVoid, which re-runs them on SQLSTATE 40001", TextEdits: edits}
	}
	return nil
}

// scanOf returns the call call.Scan(...) the row call is read by, or nil.
func (c *Rewriter) scanOf(call *ast.CallExpr) *ast.CallExpr {
	var scan *ast.CallExpr
	ast.Inspect(c.FileOf(call.Pos()), func(n ast.Node) bool {
		if scan != nil {
			return false
		}
		if ce, ok := n.(*ast.CallExpr); ok {
			if s, ok := ce.Fun.(*ast.SelectorExpr); ok && s.X == call && s.Sel.Name == "Scan" {
				scan = ce
			}
		}
		return n == nil || n.Pos() <= call.Pos() && call.End() <= n.End()
	})
	return scan
}

// usesName reports whether an identifier named name appears in n.
func usesName(n ast.Node, name string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// CanImport reports whether the package may import path, a package of
// dsqllint's runtime: it already does, or its module is or requires the
// runtime's module that holds it.
func (c *Rewriter) CanImport(path string) bool {
	for _, imp := range c.Pass.Pkg.Imports() {
		if imp.Path() == path {
			return true
		}
	}
	return c.Settings.CanImportRuntime(path)
}

// ImportName returns the name under which file refers to path, and the
// edit that adds the import when the file lacks it, where goimports would:
// after the import sharing the longest prefix with it, or in a group of
// its own after the standard library's. (-fix then gofmts a file that was
// gofmt-formatted, which sorts the group.)
func (c *Rewriter) ImportName(file *ast.File, path, name string) (string, *analysis.TextEdit) {
	if file == nil {
		return name, nil
	}
	for _, imp := range file.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			if imp.Name != nil {
				return imp.Name.Name, nil
			}
			return name, nil
		}
	}
	spec := strconv.Quote(path)
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT || len(g.Specs) == 0 {
			continue
		}
		var best *ast.ImportSpec
		n := -1
		for _, s := range g.Specs {
			is := s.(*ast.ImportSpec)
			p, _ := strconv.Unquote(is.Path.Value)
			if k := commonPrefix(p, path); k >= n {
				best, n = is, k
			}
		}
		bestPath, _ := strconv.Unquote(best.Path.Value)
		sep := "\n\t"
		if stdPath(bestPath) {
			sep = "\n\n\t" // a group of its own after the standard library
		}
		if g.Lparen.IsValid() {
			return name, &analysis.TextEdit{Pos: best.End(), End: best.End(), NewText: []byte(sep + spec)}
		}
		// import "fmt" becomes a group.
		src := c.Source(g.Pos())
		if src == nil {
			return name, nil
		}
		old := string(src[c.Pass.Fset.Position(best.Pos()).Offset:c.Pass.Fset.Position(best.End()).Offset])
		return name, &analysis.TextEdit{Pos: g.Pos(), End: g.End(), NewText: []byte("import (\n\t" + old + sep + spec + "\n)")}
	}
	return name, &analysis.TextEdit{Pos: file.Name.End(), End: file.Name.End(), NewText: []byte("\n\nimport " + spec)}
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// stdPath reports a standard-library import path: no dot in its first
// element.
func stdPath(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// Rewriter writes DSQL005's fixes for a package: the rewrite of a function
// that begins a transaction into the OCC retry helper, and the retry of a
// statement run on a pool.
type Rewriter struct {
	*gosql.Package
	// effects caches what a retry repeating a call of a package function
	// would repeat.
	effects map[*types.Func]funcEffects
}
