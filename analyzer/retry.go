package analyzer

import (
	"fmt"
	"go/ast"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
	"github.com/dsqllint/dsqllint/txflow"
)

// locksWithoutRetry reports DSQL005: a FOR UPDATE, or a CAS write after a
// read, on a transaction begun here outside any 40001 retry. The
// transaction is followed into package functions it is passed to.
func (c *checker) locksWithoutRetry(scripts map[*Text]*sqlparse.Script) {
	for _, b := range c.begins {
		if b.retried || c.callersRetry(b.scope) {
			continue
		}
		aliases := c.txAliases(b.tx)
		readFirst := map[ast.Node]bool{} // scopes that already read on the tx
		for _, q := range c.allQueries() {
			recv := identObj(c.pass.TypesInfo, c.runsOn(q.base()))
			if recv == nil || !aliases[recv] {
				continue
			}
			s := scripts[q.text]
			if s == nil {
				continue
			}
			what := ""
			for _, st := range s.Stmts {
				for _, l := range st.Locks {
					if l.Strength == sqlparse.ForUpdate {
						what = "SELECT ... FOR UPDATE"
					}
				}
				if what == "" && readFirst[q.scope] && rules.IsCASWrite(c.settings.cfg, st) {
					what = "this read-modify-write"
				}
				if st.Kind == sqlparse.KindSelect {
					readFirst[q.scope] = true
				}
			}
			if what == "" {
				continue
			}
			p := c.pass.Fset.Position(b.call.Pos())
			begin := fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
			shape := "occ.RunTxWithRetry(ctx, db, func(tx *sql.Tx) (T, error) { ... })"
			if b.pgx {
				shape = "occpgx.RunTxWithRetry(ctx, pool, func(tx pgx.Tx) (T, error) { ... })"
			}
			c.reportGo("DSQL005", q.call.Pos(), q.call.End(), rules.LockWithoutRetryMessage(what, begin, shape), nil,
				analysis.RelatedInformation{Pos: b.call.Pos(), Message: txflow.BeginRelated})
			break // once per transaction: the first statement that needs the retry
		}
	}
}

// poolTypes are the handles on which a statement runs outside any
// transaction: DSQL runs it as a transaction of its own.
var poolTypes = map[[2]string]bool{
	{pkgSQL, "DB"}: true, {pkgSQL, "Conn"}: true,
	{pkgSQLX, "DB"}: true, {pkgSQLX, "Conn"}: true,
	{pkgPGXPool, "Pool"}: true, {pkgPGXPool, "Conn"}: true, {pkgPGX, "Conn"}: true,
}

// onPool reports whether the handle x is a pool or a connection (never a
// transaction), and whether it is pgx's.
func (c *checker) onPool(x ast.Expr) (ok, pgx bool) {
	if x == nil {
		return false, false
	}
	t := c.pass.TypesInfo.TypeOf(x)
	if p, isPtr := t.(*types.Pointer); isPtr {
		t = p.Elem()
	}
	n, isNamed := t.(*types.Named)
	if !isNamed || n.Obj().Pkg() == nil {
		return false, false
	}
	path := n.Obj().Pkg().Path()
	return poolTypes[[2]string{path, n.Obj().Name()}], strings.HasPrefix(path, pkgPGX)
}

// singleLocks reports DSQL005 for a statement holding FOR UPDATE (itself
// or in a CTE) run on a pool outside any transaction and any 40001 retry:
// DSQL runs it as its own transaction, which fails at commit like any
// other. The module stage overrules it when every caller retries.
func (c *checker) singleLocks(scripts map[*Text]*sqlparse.Script) {
	for _, q := range c.allQueries() {
		s := scripts[q.text]
		if s == nil || !slices.ContainsFunc(s.Stmts, locksForUpdate) {
			continue
		}
		pool, pgx := c.onPool(c.runsOn(q.base()))
		if !pool || c.queryRetried(q) {
			continue
		}
		key, _, _ := c.scopeFunc(q.scope)
		c.singles = append(c.singles, txflow.SingleLock{Func: key, Helper: q.helper, Pos: q.call.Pos()})
		c.reportGo("DSQL005", q.call.Pos(), q.call.End(), rules.SingleLockWithoutRetryMessage(execMethods[q.key], pgx), nil)
	}
}

// callersRetry reports whether every way into scope retries: for a
// package function, each call of it sits in a retry (and there is one).
func (c *checker) callersRetry(scope ast.Node) bool {
	fd, ok := scope.(*ast.FuncDecl)
	if !ok {
		return false
	}
	n := 0
	for _, calls := range c.calls {
		for _, lc := range calls {
			if lc.fn != fd {
				continue
			}
			if !lc.retryClosure && !c.anyMentionsRetry(lc.loops) {
				return false
			}
			n++
		}
	}
	return n > 0
}

// txAliases returns tx and the parameters of package functions it is
// passed to, transitively (three calls deep).
func (c *checker) txAliases(tx types.Object) map[types.Object]bool {
	aliases := map[types.Object]bool{tx: true}
	frontier := []types.Object{tx}
	for depth := 0; depth < 3 && len(frontier) > 0; depth++ {
		var next []types.Object
		for _, calls := range c.calls {
			for _, lc := range calls {
				for _, arg := range lc.call.Args {
					id, ok := ast.Unparen(arg).(*ast.Ident)
					if !ok || !containsObj(frontier, c.pass.TypesInfo.Uses[id]) {
						continue
					}
					if p := paramAt(c.pass.TypesInfo, lc.fn, lc.call, arg); p != nil && !aliases[p] {
						aliases[p] = true
						next = append(next, p)
					}
				}
			}
		}
		frontier = next
	}
	return aliases
}

func containsObj(list []types.Object, o types.Object) bool {
	for _, x := range list {
		if x == o && o != nil {
			return true
		}
	}
	return false
}

// identObj returns the variable x names, or nil.
func identObj(info *types.Info, x ast.Expr) types.Object {
	if id, ok := ast.Unparen(x).(*ast.Ident); ok {
		return info.Uses[id]
	}
	return nil
}
