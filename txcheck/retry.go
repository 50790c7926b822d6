package txcheck

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"

	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
	"github.com/dsqllint/dsqllint/sqltext"
	"github.com/dsqllint/dsqllint/txflow"
)

// DSQL005's package part: the lock sites — every statement text that
// locks FOR UPDATE, at its lock clause, whatever runs it — and the ways
// the package runs them (txflow.LockRun): on which handle, in which
// function, inside which retry. txflow judges them, for the package alone
// (reported here) and for the module (the dsqllint command).

// poolTypes are the handles on which a statement runs outside any
// transaction: DSQL runs it as a transaction of its own.
var poolTypes = map[[2]string]bool{
	{gosql.PkgSQL, "DB"}: true, {gosql.PkgSQL, "Conn"}: true,
	{gosql.PkgSQLX, "DB"}: true, {gosql.PkgSQLX, "Conn"}: true,
	{gosql.PkgPGXPool, "Pool"}: true, {gosql.PkgPGXPool, "Conn"}: true, {gosql.PkgPGX, "Conn"}: true,
}

// onPool reports whether the handle x is a pool or a connection (never a
// transaction), and whether it is pgx's.
func (c *checker) onPool(x ast.Expr) (ok, pgx bool) {
	if x == nil {
		return false, false
	}
	t := c.Pass.TypesInfo.TypeOf(x)
	if p, isPtr := t.(*types.Pointer); isPtr {
		t = p.Elem()
	}
	n, isNamed := t.(*types.Named)
	if !isNamed || n.Obj().Pkg() == nil {
		return false, false
	}
	path := n.Obj().Pkg().Path()
	return poolTypes[[2]string{path, n.Obj().Name()}], strings.HasPrefix(path, gosql.PkgPGX)
}

// lockIndex finds the package's lock sites by where their text is
// written.
type lockIndex struct {
	pos     []token.Pos // sorted site positions
	byConst map[types.Object][]token.Pos
	sites   map[token.Pos]int // index in the summary's Locks
}

// sitesIn returns the sites whose lock clause lies in [from, to).
func (x *lockIndex) sitesIn(from, to token.Pos) []token.Pos {
	i := sort.Search(len(x.pos), func(i int) bool { return x.pos[i] >= from })
	var out []token.Pos
	for ; i < len(x.pos) && x.pos[i] < to; i++ {
		out = append(out, x.pos[i])
	}
	return out
}

// summarizeLocks records the package's lock sites and runs, and reports
// DSQL005 for what the package alone shows.
func (c *checker) summarizeLocks(s *txflow.Summary, scripts map[*sqltext.Text]*sqlparse.Script, parsed []*gosql.Parsed, begins map[types.Object]int, bound map[any]int) {
	idx := &lockIndex{byConst: map[types.Object][]token.Pos{}, sites: map[token.Pos]int{}}
	addSite := func(l txflow.LockSite) {
		if _, dup := idx.sites[l.Pos]; !dup {
			idx.sites[l.Pos] = len(s.Locks)
			s.Locks = append(s.Locks, l)
		}
	}
	// The texts where SQL is written: each FOR UPDATE a site.
	scopeOf := map[token.Pos]ast.Node{} // a site's function, for uses of its text
	for _, p := range parsed {
		t := p.Text
		if t.Ref || t.Generated {
			continue
		}
		for _, st := range p.Script.Stmts {
			l := c.rowLock(st)
			if l == nil {
				continue
			}
			site := txflow.LockSite{Pos: t.Pos(l.Span.Start, false), End: t.Pos(l.Span.End, true), What: lockWhat(l.Strength),
				Test: t.Node != nil && c.InTest(t.Node.Pos())}
			site.Quiet = c.silenced(p, st, site.Pos)
			if t.Const != nil {
				site.Const = constKey(t.Const)
				idx.byConst[t.Const] = append(idx.byConst[t.Const], site.Pos)
			}
			addSite(site)
			scopeOf[site.Pos] = t.Scope
		}
	}
	for p := range idx.sites {
		idx.pos = append(idx.pos, p)
	}
	slices.Sort(idx.pos)
	sqlcLocks := c.sqlcLocks(scripts)
	ran := map[token.Pos]bool{}
	seenRun := map[string]bool{} // a call whose text is read twice (as written, by data flow) runs once
	for _, q := range c.AllQueries() {
		sc := scripts[q.Text]
		if sc == nil {
			continue
		}
		st := slices.IndexFunc(sc.Stmts, func(st *sqlparse.Statement) bool { return c.rowLock(st) != nil })
		if st < 0 {
			continue
		}
		r := c.lockRun(q, begins, bound)
		switch {
		case q.Text.Generated || c.Generated[c.FileOf(q.Call.Pos())] && sqlcName(sc.Text) != "":
			// sqlc's Go runs the query file's statement.
			sp, ok := sqlcLocks[sqlcName(sc.Text)]
			if !ok {
				continue
			}
			r.Sites = []token.Pos{sp[0]}
		default:
			r.Sites, r.Consts = c.textSites(q.Text, idx)
		}
		if len(r.Sites) == 0 && len(r.Consts) == 0 {
			// Assembled where it runs (a clause appended at run time, a
			// dialect's lock): the site is the text at the call.
			t, l := q.Text, c.rowLock(sc.Stmts[st])
			site := txflow.LockSite{Pos: t.Pos(l.Span.Start, false), End: t.Pos(l.Span.End, true), What: lockWhat(l.Strength),
				Test: c.InTest(q.Call.Pos())}
			site.Quiet = c.SuppressedAt("DSQL005", site.Pos, t.Node)
			addSite(site)
			r.Sites = []token.Pos{site.Pos}
		}
		for _, p := range r.Sites {
			ran[p] = true
			if i, ok := idx.sites[p]; ok && gosql.ExecMethods[q.Base().Key] {
				s.Locks[i].Exec = true
			}
		}
		if k := runKey(r); !seenRun[k] {
			seenRun[k] = true
			s.Runs = append(s.Runs, r)
		}
	}
	c.readModifyWrites(s, scripts, begins, bound, addSite)
	c.orphanLocks(s, scripts, addSite)
	// A site no query call of the package runs is judged where its text
	// is used: it runs in that function's extent, on a handle unknown.
	for _, l := range s.Locks {
		if ran[l.Pos] || l.Const != "" {
			continue
		}
		if key, _, _ := c.scopeFunc(scopeOf[l.Pos]); key != "" {
			s.Runs = append(s.Runs, txflow.LockRun{Sites: []token.Pos{l.Pos}, Func: key, Param: txflow.NoHandle, Begin: -1, Unfollowed: true, Pos: l.Pos})
		}
	}
	c.constUses(s, idx)
}

// orphanLocks makes lock sites of the FOR UPDATE clauses no query text
// the package runs holds: an ORM's or a builder's lock spelled as Go, a
// bare clause appended to a query the analysis cannot render or follow
// (a builder whose predicate is known only at run time). Each runs where
// it is written, as far as the package can tell.
func (c *checker) orphanLocks(s *txflow.Summary, scripts map[*sqltext.Text]*sqlparse.Script, addSite func(txflow.LockSite)) {
	if len(c.ormLocks) == 0 && len(c.lockFragments) == 0 {
		return
	}
	var held [][2]token.Pos // where the texts of the package's lock runs come from
	for _, q := range c.AllQueries() {
		sc := scripts[q.Text]
		if sc == nil || !slices.ContainsFunc(sc.Stmts, func(st *sqlparse.Statement) bool { return c.rowLock(st) != nil }) {
			continue
		}
		for _, p := range q.Text.Pieces {
			held = append(held, [2]token.Pos{p.Pos, p.EndPos})
		}
		held = append(held, q.Text.Origins...)
	}
	for _, l := range append(slices.Clip(c.ormLocks), c.lockFragments...) {
		if !c.lockSite(l.strength) || slices.ContainsFunc(held, func(r [2]token.Pos) bool { return r[0] <= l.pos && l.pos < r[1] }) {
			continue
		}
		site := txflow.LockSite{Pos: l.pos, End: l.end, What: lockWhat(l.strength), Test: c.InTest(l.pos)}
		site.Quiet = c.SuppressedAt("DSQL005", l.pos, nil)
		addSite(site)
		if key, _, _ := c.scopeFunc(l.scope); key != "" {
			s.Runs = append(s.Runs, txflow.LockRun{Sites: []token.Pos{l.pos}, Func: key, Param: txflow.NoHandle, Begin: -1, Unfollowed: true, Pos: l.pos})
		}
	}
}

// runKey identifies a run by its call and what it runs.
func runKey(r txflow.LockRun) string {
	return fmt.Sprint(r.Pos, r.Sites, r.Consts, r.Via)
}

// rowLock returns the statement's first lock site, or nil: a FOR UPDATE,
// or a clause DSQL rejects (FOR SHARE, FOR NO KEY UPDATE), which DSQL001's
// fix makes a FOR UPDATE needing the same retry. A bare clause that code
// appends to a query is no statement of its own.
func (c *checker) rowLock(st *sqlparse.Statement) *sqlparse.Lock {
	if st.Fragment {
		return nil
	}
	for _, l := range st.Locks {
		if c.lockSite(l.Strength) {
			return l
		}
	}
	return nil
}

// lockSite reports a lock of strength s that DSQL005 judges: FOR UPDATE
// and what DSQL001 turns into one. A FOR KEY SHARE the target accepts
// stays what it is.
func (c *checker) lockSite(s sqlparse.Strength) bool {
	return s == sqlparse.ForUpdate || c.Settings.Cfg.RejectsStrength(s)
}

// lockWhat is how DSQL005 names a lock site of strength s.
func lockWhat(s sqlparse.Strength) string {
	if s == sqlparse.ForUpdate || s == 0 {
		return "SELECT ... FOR UPDATE"
	}
	return "SELECT ... " + s.String() + " (FOR UPDATE once the share-lock fix applies)"
}

// silenced reports a directive that silences DSQL005 at a statement: an
// SQL one before it, or a Go one at its line or the line above.
func (c *checker) silenced(p *gosql.Parsed, st *sqlparse.Statement, pos token.Pos) bool {
	for _, d := range p.Dirs {
		if d.Names("DSQL005") && d.Stmt < len(p.Script.Stmts) && p.Script.Stmts[d.Stmt] == st {
			d.Used = true
			return true
		}
	}
	var anchor ast.Node
	if p.Text.Node != nil {
		anchor = p.Text.Node
	}
	return c.SuppressedAt("DSQL005", pos, anchor)
}

// constKey names a package-level constant (or variable) across packages;
// "" for a local one.
func constKey(obj types.Object) string {
	if obj == nil || obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() {
		return ""
	}
	return obj.Pkg().Path() + "." + obj.Name()
}

// textSites returns the lock sites a text run at a query call comes
// from: those written inside it or inside the expressions it was
// assembled from, and the constants it names.
func (c *checker) textSites(t *sqltext.Text, idx *lockIndex) (sites []token.Pos, consts []string) {
	seen := map[token.Pos]bool{}
	add := func(from, to token.Pos) {
		for _, p := range idx.sitesIn(from, to) {
			if !seen[p] {
				seen[p] = true
				sites = append(sites, p)
			}
		}
	}
	for _, p := range t.Pieces {
		if !p.Opaque {
			add(p.Pos, p.EndPos)
		}
	}
	for _, r := range t.Origins {
		add(r[0], r[1])
	}
	objs := t.Consts
	if t.Const != nil {
		objs = append([]types.Object{t.Const}, objs...)
	}
	for _, obj := range objs {
		if ps, ok := idx.byConst[obj]; ok {
			for _, p := range ps {
				if !seen[p] {
					seen[p] = true
					sites = append(sites, p)
				}
			}
		} else if k := constKey(obj); k != "" && obj.Pkg() != c.Pass.Pkg && !slices.Contains(consts, k) {
			consts = append(consts, k)
		}
	}
	return sites, consts
}

// lockRun describes how the query call q runs its text: the function and
// handle of the driver call, the retry around it, and the calls of the
// package's own query functions it goes through.
func (c *checker) lockRun(q *gosql.Query, begins map[types.Object]int, bound map[any]int) txflow.LockRun {
	base := q.Base()
	key, ft, recv := c.scopeFunc(base.Scope)
	r := txflow.LockRun{Func: key, Param: txflow.NoHandle, Begin: -1, Pos: base.Call.Pos(),
		Retried: c.retried(base.Site) || occExec(base.Key), Loop: c.pendingLoop(base.Loops)}
	info := c.Pass.TypesInfo
	if x := c.handleExpr(base); x != nil {
		if b, ok := bound[boundKey(info, x)]; ok {
			r.Begin = b
		} else if b, ok := begins[identObj(info, x)]; ok {
			r.Begin = b
		} else if pool, pgx := c.onPool(x); pool {
			r.Pool, r.PGX = true, pgx
			if q == base {
				r.Fix = c.fix.StatementRetry(base, pgx)
			}
		} else if pool, pgx := c.madeFromPool(x); pool {
			r.Pool, r.PGX = true, pgx
		} else {
			r.Param = handleOf(info, ft, recv, x)
		}
	}
	// Through query functions: pin each call on the way out.
	chain := []*gosql.Query{}
	for x := q; x != nil && x != base; x = x.Via {
		chain = append(chain, x)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		from, _, _ := c.scopeFunc(chain[i].Scope)
		r.Via = append(r.Via, txflow.Pin{Func: from, Pos: chain[i].Call.Pos(), Retried: c.retried(chain[i].Site), Loop: c.pendingLoop(chain[i].Loops)})
	}
	return r
}

// handleExpr is what a query call runs on: its receiver, the RunWith
// handle of a builder, or the handle argument of a package function
// (sqlx.Get(db, ...), occ.ExecWithRetry(ctx, db, ...)).
func (c *checker) handleExpr(q *gosql.Query) ast.Expr {
	if x := c.RunsOn(q); x != nil {
		return x
	}
	switch {
	case q.Key.Pkg == gosql.PkgSQLX && !q.Key.Method && len(q.Call.Args) > 0:
		i := 0
		if strings.HasSuffix(q.Key.Name, "Context") {
			i = 1
		}
		if i < len(q.Call.Args) {
			return q.Call.Args[i]
		}
	case occExec(q.Key) && len(q.Call.Args) > 1:
		return q.Call.Args[1]
	}
	return nil
}

// occExec reports a call of occ's or occpgx's ExecWithRetry: a retry.
func occExec(k gosql.Callee) bool {
	return (k.Pkg == gosql.PkgOCC || k.Pkg == gosql.PkgOCCPGX) && strings.HasPrefix(k.Name, "ExecWithRetry")
}

// readModifyWrites records, as sites of their own, the compare-and-swap
// writes a transaction the package begins runs after reading, when the
// transaction holds no FOR UPDATE: a lost race fails it at COMMIT too.
func (c *checker) readModifyWrites(s *txflow.Summary, scripts map[*sqltext.Text]*sqlparse.Script, begins map[types.Object]int, bound map[any]int, addSite func(txflow.LockSite)) {
	for _, b := range c.begins {
		aliases := c.txAliases(b.tx)
		readFirst := map[ast.Node]bool{} // scopes that already read on the tx
		var rmw *gosql.Query
		locks := false
		for _, q := range c.AllQueries() {
			recv := identObj(c.Pass.TypesInfo, c.RunsOn(q.Base()))
			sc := scripts[q.Text]
			if recv == nil || !aliases[recv] || sc == nil {
				continue
			}
			for _, st := range sc.Stmts {
				locks = locks || c.rowLock(st) != nil
				if rmw == nil && readFirst[q.Scope] && rules.IsCASWrite(c.Settings.Cfg, st) {
					rmw = q
				}
				if st.Kind == sqlparse.KindSelect {
					readFirst[q.Scope] = true
				}
			}
		}
		if rmw == nil || locks {
			continue
		}
		site := txflow.LockSite{Pos: rmw.Call.Pos(), End: rmw.Call.End(), What: "this read-modify-write", Exec: gosql.ExecMethods[rmw.Key],
			Test: c.InTest(rmw.Call.Pos())}
		site.Quiet = c.SuppressedAt("DSQL005", site.Pos, nil)
		addSite(site)
		r := c.lockRun(rmw, begins, bound)
		r.Sites = []token.Pos{site.Pos}
		s.Runs = append(s.Runs, r)
	}
}

// constUses records, for lock texts declared as package constants, where
// the package uses them without a query call running them: a raw query
// of an ORM, a wrapper of any shape. Constants of other module packages
// count when they lock.
func (c *checker) constUses(s *txflow.Summary, idx *lockIndex) {
	ran := map[string]bool{}
	for _, r := range s.Runs {
		for _, k := range r.Consts {
			ran[k] = true
		}
		for _, p := range r.Sites {
			if i, ok := idx.sites[p]; ok && s.Locks[i].Const != "" {
				ran[s.Locks[i].Const] = true
			}
		}
	}
	wanted := func(obj types.Object) (string, bool) {
		cst, ok := obj.(*types.Const)
		if !ok || !gosql.IsStringType(cst.Type()) {
			return "", false
		}
		k := constKey(cst)
		if k == "" || ran[k] {
			return "", false
		}
		if cst.Pkg() == c.Pass.Pkg {
			return k, len(idx.byConst[cst]) > 0
		}
		return k, c.inModulePkg(cst.Pkg()) && containsFold(cst.Val().ExactString(), "for update")
	}
	var ids []*ast.Ident
	for id, obj := range c.Pass.TypesInfo.Uses {
		if _, ok := wanted(obj); ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].Pos() < ids[j].Pos() })
	seen := map[[2]string]bool{}
	for _, id := range ids {
		obj := c.Pass.TypesInfo.Uses[id]
		k, _ := wanted(obj)
		scope := c.funcAt(id.Pos())
		key, _, _ := c.scopeFunc(scope)
		if key == "" || seen[[2]string{k, key}] {
			continue
		}
		seen[[2]string{k, key}] = true
		r := txflow.LockRun{Func: key, Param: txflow.NoHandle, Begin: -1, Unfollowed: true, Pos: id.Pos()}
		if ps := idx.byConst[obj]; len(ps) > 0 {
			r.Sites = ps
		} else {
			r.Consts = []string{k}
		}
		s.Runs = append(s.Runs, r)
	}
}

// funcAt returns the innermost function declaration or literal holding
// pos, or nil.
func (c *checker) funcAt(pos token.Pos) ast.Node {
	var found ast.Node
	for _, f := range c.Pass.Files {
		if pos < f.Pos() || pos >= f.End() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil || pos < n.Pos() || pos >= n.End() {
				return false
			}
			switch n.(type) {
			case *ast.FuncDecl, *ast.FuncLit:
				found = n
			}
			return true
		})
	}
	return found
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), sub)
}

// txAliases returns tx and the parameters of package functions it is
// passed to, transitively (three calls deep).
func (c *checker) txAliases(tx types.Object) map[types.Object]bool {
	aliases := map[types.Object]bool{tx: true}
	frontier := []types.Object{tx}
	for depth := 0; depth < 3 && len(frontier) > 0; depth++ {
		var next []types.Object
		for _, calls := range c.Calls {
			for _, lc := range calls {
				for _, arg := range lc.Call.Args {
					id, ok := ast.Unparen(arg).(*ast.Ident)
					if !ok || !containsObj(frontier, c.Pass.TypesInfo.Uses[id]) {
						continue
					}
					if p := paramAt(c.Pass.TypesInfo, lc.Fn, lc.Call, arg); p != nil && !aliases[p] {
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
