package gosql

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/dsqllint/dsqllint/catalog"
)

// A module that keeps several databases' backends often chooses between
// them inside one function: `if tx.Dialect.Name() == "cockroach" { lock =
// "FOR UPDATE SKIP LOCKED" }`, `if d != dbal.DriverCockroachDB { return
// fn(con) }` before CockroachDB's own transaction options, `case
// "sqlite3":`. What such a branch runs never reaches PostgreSQL, nor
// Aurora DSQL: its SQL is not checked, nor its transactions' options
// (OtherDatabaseAt). Only a comparison with another database's name, or a
// test named for one (isMySQL()), marks a branch: the else of `== "postgres"`
// may still be PostgreSQL under another driver's name.

// dialectRegion is source that runs only against another database.
type dialectRegion struct{ pos, end token.Pos }

// noteDialectBranch records the branches of an if statement or the
// clause of a switch that run only against another database; parent is
// the node holding n, grand the one holding parent.
func (c *Package) noteDialectBranch(n, parent, grand ast.Node) {
	switch n := n.(type) {
	case *ast.IfStmt:
		c.notePostgresTest(n.Cond)
		then, els := c.dialectGuard(n.Cond, 0)
		switch {
		case then:
			c.otherRegions = append(c.otherRegions, dialectRegion{n.Body.Pos(), n.Body.End()})
		case els && n.Else != nil:
			c.otherRegions = append(c.otherRegions, dialectRegion{n.Else.Pos(), n.Else.End()})
		case els && Terminates(n.Body):
			// if d != "cockroach" { return fn(con) }: the rest of the
			// block is CockroachDB's.
			if end := blockEnd(parent); end.IsValid() {
				c.otherRegions = append(c.otherRegions, dialectRegion{n.End(), end})
			}
		}
	case *ast.CaseClause:
		sw, ok := grand.(*ast.SwitchStmt)
		if !ok || len(n.List) == 0 {
			return
		}
		if sw.Tag != nil && slices.ContainsFunc(n.List, c.namesPostgres) {
			c.choosesPostgres = true // case "postgres": the package serves PostgreSQL among others
		}
		for _, e := range n.List {
			c.notePostgresTest(e)
		}
		for _, e := range n.List {
			if sw.Tag != nil && !c.namesOtherDatabase(e) || sw.Tag == nil && !c.thenOther(e) {
				return
			}
		}
		c.otherRegions = append(c.otherRegions, dialectRegion{n.Colon, n.End()})
	}
}

func (c *Package) thenOther(e ast.Expr) bool {
	then, _ := c.dialectGuard(e, 0)
	return then
}

// dialectGuard reports, of a condition, that the database is not
// PostgreSQL where it holds (then) or where it does not (els).
func (c *Package) dialectGuard(cond ast.Expr, depth int) (then, els bool) {
	if depth > 8 {
		return false, false
	}
	switch e := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			then, els = c.dialectGuard(e.X, depth+1)
			return els, then
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LAND:
			t1, e1 := c.dialectGuard(e.X, depth+1)
			t2, e2 := c.dialectGuard(e.Y, depth+1)
			return t1 || t2, e1 && e2
		case token.LOR:
			t1, e1 := c.dialectGuard(e.X, depth+1)
			t2, e2 := c.dialectGuard(e.Y, depth+1)
			return t1 && t2, e1 || e2
		case token.EQL, token.NEQ:
			if isNil(e.X) || isNil(e.Y) {
				return false, false // err != nil, the common case
			}
			if c.namesPostgres(e.X) || c.namesPostgres(e.Y) {
				c.choosesPostgres = true
			}
			other := c.namesOtherDatabase(e.Y) && !c.isConstant(e.X) || c.namesOtherDatabase(e.X) && !c.isConstant(e.Y)
			return other && e.Op == token.EQL, other && e.Op == token.NEQ
		}
	case *ast.CallExpr:
		if fn, _ := typeutil.Callee(c.Pass.TypesInfo, e).(*types.Func); fn != nil && c.isBool(e) {
			return c.testNamed(fn.Name()), false
		}
	case *ast.Ident:
		return c.isBool(e) && c.testNamed(e.Name), false
	case *ast.SelectorExpr:
		return c.isBool(e) && c.testNamed(e.Sel.Name), false
	}
	return false, false
}

// testNamed reports a test (a function, a flag) named for another
// database: isMySQL, IsSQLite3, isCockroachDB, IsCRDB, isMySQLDialect,
// Gogs' conf.UseMySQL. One named for PostgreSQL (conf.UsePostgreSQL) says
// the package serves PostgreSQL among others.
func (c *Package) testNamed(name string) bool {
	db := testedDatabase(name)
	if db == "PostgreSQL" {
		c.choosesPostgres = true
	}
	return db != "" && db != "PostgreSQL"
}

// testedDatabase returns the database a test's name is for: is, use or
// using, the database's name, and maybe Dialect, Driver or DB after it.
func testedDatabase(name string) string {
	lower := strings.ToLower(name)
	for _, prefix := range []string{"using", "use", "is"} {
		rest, ok := strings.CutPrefix(lower, prefix)
		if !ok {
			continue
		}
		for _, suffix := range []string{"dialect", "driver", "db", ""} {
			if w, ok := strings.CutSuffix(rest, suffix); ok && w != "" {
				if db := catalog.NamedIn(w, true); db != "" {
					return db
				}
			}
		}
	}
	return ""
}

// notePostgresTest notes a condition that names PostgreSQL's
// configuration (Flyte's datacatalog: `case
// !dbConfigValues.Postgres.IsEmpty():`): the package chooses it among
// others.
func (c *Package) notePostgresTest(cond ast.Expr) {
	if c.choosesPostgres {
		return
	}
	ast.Inspect(cond, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && strings.Contains(strings.ToLower(id.Name), "postgres") {
			c.choosesPostgres = true
		}
		return !c.choosesPostgres
	})
}

// namesPostgres reports a string constant that is PostgreSQL's name
// ("postgres", "postgresql").
func (c *Package) namesPostgres(e ast.Expr) bool {
	v, ok := c.ConstString(e)
	return ok && databaseName.MatchString(v) && catalog.DatabaseNamed(v) == "PostgreSQL"
}

// namesOtherDatabase reports an expression naming a database other than
// PostgreSQL: a string constant that is a database's name ("mysql",
// dbal.DriverCockroachDB = "cockroach"), or a constant of another kind (an
// enum) named for one (DBTypeMySQL).
func (c *Package) namesOtherDatabase(e ast.Expr) bool {
	tv, ok := c.Pass.TypesInfo.Types[e]
	if !ok || tv.Value == nil {
		return false
	}
	if tv.Value.Kind() == constant.String {
		v := constant.StringVal(tv.Value)
		if !databaseName.MatchString(v) {
			return false
		}
		db := catalog.DatabaseNamed(v)
		return db != "" && db != "PostgreSQL"
	}
	var name string
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		name = x.Name
	case *ast.SelectorExpr:
		name = x.Sel.Name
	default:
		return false
	}
	db := catalog.NamedIn(name, false)
	return db != "" && db != "PostgreSQL"
}

// databaseName is what a database's name looks like as a value: one
// short word ("sqlite3", "cockroachdb"), not a statement that names one.
var databaseName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{1,23}$`)

func (c *Package) isConstant(e ast.Expr) bool {
	tv, ok := c.Pass.TypesInfo.Types[e]
	return ok && tv.Value != nil
}

func (c *Package) isBool(e ast.Expr) bool {
	t := c.Pass.TypesInfo.TypeOf(e)
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}

func isNil(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && id.Name == "nil"
}

// Terminates reports a block whose last statement returns or panics.
func Terminates(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch s := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.ExprStmt:
		call, ok := s.X.(*ast.CallExpr)
		if !ok {
			return false
		}
		id, ok := call.Fun.(*ast.Ident)
		return ok && id.Name == "panic"
	}
	return false
}

// blockEnd is where the statements after one in parent end: the end of
// a block or of a case clause.
func blockEnd(parent ast.Node) token.Pos {
	switch p := parent.(type) {
	case *ast.BlockStmt:
		return p.Rbrace
	case *ast.CaseClause:
		return p.End()
	case *ast.CommClause:
		return p.End()
	}
	return token.NoPos
}

// inOtherRegion reports a position inside a branch for another database.
func (c *Package) inOtherRegion(pos token.Pos) bool {
	for _, r := range c.otherRegions {
		if r.pos <= pos && pos < r.end {
			return true
		}
	}
	return false
}

// noteConflictBranch records an if statement or a case clause that tests
// an SQLSTATE against 40001 (`case "40001":`, `case
// pgerrcode.SerializationFailure:`, `if code == "40001"`): an error
// translation layer's branch, whose returns name the error a
// serialization failure becomes for its callers (Ory's sqlcon maps it to
// ErrConcurrentUpdate()).
func (c *Package) noteConflictBranch(n ast.Node) {
	switch n := n.(type) {
	case *ast.CaseClause:
		for _, e := range n.List {
			if c.is40001(e) {
				c.ConflictBranches = append(c.ConflictBranches, n)
				return
			}
		}
	case *ast.IfStmt:
		if c.tests40001(n.Cond, 0) {
			c.ConflictBranches = append(c.ConflictBranches, n)
		}
	}
}

// tests40001 reports a condition holding `x == "40001"`, alone or in a
// disjunction or conjunction.
func (c *Package) tests40001(cond ast.Expr, depth int) bool {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || depth > 8 {
		return false
	}
	switch b.Op {
	case token.EQL:
		return c.is40001(b.X) || c.is40001(b.Y)
	case token.LOR, token.LAND:
		return c.tests40001(b.X, depth+1) || c.tests40001(b.Y, depth+1)
	}
	return false
}

// is40001 reports the constant "40001" (a literal, or a named constant
// such as pgerrcode.SerializationFailure).
func (c *Package) is40001(e ast.Expr) bool {
	switch ast.Unparen(e).(type) {
	case *ast.BasicLit, *ast.Ident, *ast.SelectorExpr:
		v, ok := c.ConstString(e)
		return ok && v == "40001"
	}
	return false
}

// noteDialectCallees extends the branches for another database to the
// package's unexported functions that only such branches call (Authelia's
// truncateSQLite3, called from its `case providerSQLite:`), until no
// more are found. A function used as a value, or called from elsewhere,
// is left alone.
func (c *Package) noteDialectCallees() {
	if len(c.otherRegions) == 0 {
		return
	}
	callers := map[*ast.FuncDecl][]token.Pos{}
	for _, cs := range c.Calls {
		for _, lc := range cs {
			callers[lc.Fn] = append(callers[lc.Fn], lc.Call.Pos())
		}
	}
	var uses map[*types.Func]int // every mention, calls included, made when first needed
	for changed := true; changed; {
		changed = false
		for fn, fd := range c.Funcs {
			ps := callers[fd]
			if fn.Exported() || len(ps) == 0 || c.inOtherRegion(fd.Pos()) || !all(ps, c.inOtherRegion) {
				continue
			}
			if uses == nil {
				uses = map[*types.Func]int{}
				for _, obj := range c.Pass.TypesInfo.Uses {
					if f, ok := obj.(*types.Func); ok && c.Funcs[f] != nil {
						uses[f]++
					}
				}
			}
			if uses[fn] != len(ps) {
				continue // a value handed on, or a call outside a function
			}
			c.otherRegions = append(c.otherRegions, dialectRegion{fd.Pos(), fd.End()})
			changed = true
		}
	}
}

func all(ps []token.Pos, f func(token.Pos) bool) bool {
	for _, p := range ps {
		if !f(p) {
			return false
		}
	}
	return true
}
