package gosql

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dsqllint/dsqllint/modconf"
	"github.com/dsqllint/dsqllint/sqlparse"
	"github.com/dsqllint/dsqllint/sqltext"
	"golang.org/x/tools/go/analysis"
)

// Query is a call of a known query method.
type Query struct {
	Call *ast.CallExpr
	Key  Callee
	Text *sqltext.Text // nil when the SQL is not known
	// Site is where the call sits (its retry context).
	Site
	// arg is the argument that holds the text; via is, for a call of one
	// of the package's own query functions (sinks.go), the query call
	// inside it that runs the text.
	arg ast.Expr
	Via *Query
	// handle is what the query runs on when the call's receiver is not
	// (a squirrel builder's RunWith argument); nil otherwise.
	handle ast.Expr
}

// RunsOn returns the expression of the handle q runs on.
func (c *Package) RunsOn(q *Query) ast.Expr {
	if q.handle != nil {
		return q.handle
	}
	return CallRecv(c.Pass.TypesInfo, q.Call)
}

// Base returns the driver call that runs q's text.
func (q *Query) Base() *Query {
	for q.Via != nil {
		q = q.Via
	}
	return q
}

const (
	PkgSQL     = "database/sql"
	PkgSQLX    = "github.com/jmoiron/sqlx"
	PkgPGX     = "github.com/jackc/pgx/v5"
	PkgPGXPool = "github.com/jackc/pgx/v5/pgxpool"
	PkgOCC     = "github.com/dsqllint/dsqllint/runtime/occ"
	PkgOCCPGX  = "github.com/dsqllint/dsqllint/runtime/occpgx"
)

var BeginMethods = map[Callee]bool{
	{PkgSQL, "Begin", true}: true, {PkgSQL, "BeginTx", true}: true,
	{PkgSQLX, "Beginx", true}: true, {PkgSQLX, "BeginTxx", true}: true, {PkgSQLX, "MustBegin", true}: true, {PkgSQLX, "MustBeginTx", true}: true,
	{PkgPGX, "Begin", true}: true, {PkgPGX, "BeginTx", true}: true,
	{PkgPGXPool, "Begin", true}: true, {PkgPGXPool, "BeginTx", true}: true,
}

var ExecMethods = map[Callee]bool{
	{PkgSQL, "Exec", true}: true, {PkgSQL, "ExecContext", true}: true,
	{PkgSQLX, "NamedExec", true}: true, {PkgSQLX, "NamedExecContext", true}: true,
	{PkgSQLX, "MustExec", true}: true, {PkgSQLX, "MustExecContext", true}: true,
	{PkgPGX, "Exec", true}: true, {PkgPGXPool, "Exec", true}: true,
}

// observeAssign tracks variables so that q := "..."; tx.Exec(q) is followed:
// a variable assigned again is not trusted, unless the assignment sits in
// the block that defined it (parent): from there on, whatever ran before,
// it holds the new value (current), which the walk's later uses read.
func (c *Package) observeAssign(a *ast.AssignStmt, parent ast.Node) {
	if a.Tok == token.DEFINE && len(a.Lhs) == 3 && len(a.Rhs) == 1 {
		// sql, args, err := builder.ToSql(): sql is the builder's text.
		if call, ok := ast.Unparen(a.Rhs[0]).(*ast.CallExpr); ok {
			if name, recv, ok := c.squirrelMethod(call); ok && name == "ToSql" && recv != nil {
				if id, ok := a.Lhs[0].(*ast.Ident); ok && c.Pass.TypesInfo.Defs[id] != nil {
					c.Defs[c.Pass.TypesInfo.Defs[id]] = call
				}
				return
			}
		}
	}
	if a.Tok == token.DEFINE && len(a.Lhs) > 1 && len(a.Rhs) == 1 {
		// q, err := adapter.NextOffsetQuery(...): q is the call's first
		// result, which is what data flow reads of a call.
		if _, isCall := ast.Unparen(a.Rhs[0]).(*ast.CallExpr); isCall {
			if id, ok := a.Lhs[0].(*ast.Ident); ok {
				if obj := c.Pass.TypesInfo.Defs[id]; obj != nil {
					c.results[obj] = a.Rhs[0]
				}
			}
		}
	}
	for i, lhs := range a.Lhs {
		id, ok := lhs.(*ast.Ident)
		if !ok {
			continue
		}
		if a.Tok == token.ASSIGN && len(a.Lhs) == 1 && len(a.Rhs) == 1 {
			// q = q.Where(...) on a squirrel builder defined once: a step.
			if obj := c.Pass.TypesInfo.Uses[id]; obj != nil && isSquirrelBuilder(obj.Type()) {
				if _, ok := c.Defs[obj]; ok {
					var steps []*ast.CallExpr
					if c.squirrelStepsOnto(a.Rhs[0], obj, &steps, 0) {
						c.builderSteps[obj] = append(c.builderSteps[obj], a.Rhs[0])
						continue
					}
				}
			}
		}
		if a.Tok == token.DEFINE && len(a.Lhs) == len(a.Rhs) {
			if obj := c.Pass.TypesInfo.Defs[id]; obj != nil {
				c.Defs[obj] = a.Rhs[i]
				if c.isStringExpr(a.Rhs[i]) {
					c.defBlocks[obj] = parent
				}
				continue
			}
		}
		if obj := c.Pass.TypesInfo.Uses[id]; obj != nil {
			if _, ok := c.Defs[obj]; ok && a.Tok == token.ADD_ASSIGN && len(a.Rhs) == 1 && c.isStringExpr(a.Rhs[0]) {
				c.prov = &provenance{}
				v, ok := c.knownString(a.Rhs[0])
				if !ok {
					// A piece known only at run time (a filter, a
					// placeholder list) stands for a name or for nothing.
					c.evalSteps = 0
					if v, ok = c.evalString(a.Rhs[0], nil, 0); !ok {
						v = " " + sqlparse.HoleIdent + " "
					}
				}
				c.appends[obj] = append(c.appends[obj], v)
				c.appendOrigins[obj] = append(c.appendOrigins[obj], c.prov.ranges...)
				c.prov = nil
				continue
			}
			delete(c.Defs, obj)
			delete(c.results, obj)
			delete(c.appends, obj)
			delete(c.appendOrigins, obj)
			delete(c.current, obj)
			if a.Tok == token.ASSIGN && len(a.Lhs) == len(a.Rhs) && parent != nil && c.defBlocks[obj] == parent && c.isStringExpr(a.Rhs[i]) {
				c.current[obj] = a.Rhs[i]
			}
		}
	}
}

// knownString returns the value of a string expression known at analysis
// time in full (eval.go, with no piece left to run time): a constant, the
// longest constant a package function or a method the package implements
// returns (a dialect's LockClause()), a local variable defined once from
// one, or a concatenation of these.
func (c *Package) knownString(e ast.Expr) (string, bool) {
	c.evalSteps = 0
	s, ok := c.evalString(e, nil, 0)
	return s, ok && !strings.Contains(s, sqlparse.HoleIdent)
}

// builderOf returns the strings.Builder (or bytes.Buffer) variable whose
// method named method the call is, or nil.
func (c *Package) builderOf(call *ast.CallExpr, method string) types.Object {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != method {
		return nil
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok {
		return nil
	}
	obj := c.Pass.TypesInfo.Uses[id]
	if obj == nil {
		return nil
	}
	t := obj.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil &&
		(n.Obj().Pkg().Path() == "strings" && n.Obj().Name() == "Builder" || n.Obj().Pkg().Path() == "bytes" && n.Obj().Name() == "Buffer") {
		return obj
	}
	return nil
}

// observeWrite keeps what a strings.Builder is given: b.WriteString(x)
// with x known; anything unknown ends what is known of the builder.
func (c *Package) observeWrite(call *ast.CallExpr) {
	b := c.builderOf(call, "WriteString")
	if b == nil || len(call.Args) != 1 {
		return
	}
	if v, ok := c.knownString(call.Args[0]); ok {
		c.appends[b] = append(c.appends[b], v)
		return
	}
	// An unknown piece (a table name, a list): it stands for a name.
	c.appends[b] = append(c.appends[b], " "+sqlparse.HoleIdent+" ")
}

// indirectText returns the SQL of a query argument that is a fmt.Sprintf
// call with a constant format, or a local variable defined once: a Ref text
// for the flow rules (the SQL itself is reported where it is written).
func (c *Package) indirectText(arg ast.Expr) (sql *sqltext.Text) {
	outer := c.prov
	c.prov = &provenance{}
	defer func() {
		p := c.prov
		c.prov = outer
		if outer != nil {
			outer.ranges = append(outer.ranges, p.ranges...)
			outer.consts = append(outer.consts, p.consts...)
		}
		if sql != nil {
			sql.Origins, sql.Consts = append(sql.Origins, p.ranges...), append(sql.Consts, p.consts...)
		}
	}()
	arg = ast.Unparen(arg)
	switch a := arg.(type) {
	case *ast.CallExpr:
		if name, recv, ok := c.squirrelMethod(a); ok && name == "ToSql" && recv != nil {
			sql, _ = c.squirrelText(recv)
		} else if b := c.builderOf(a, "String"); b != nil && len(c.appends[b]) > 0 {
			sql = opaqueText(strings.Join(c.appends[b], ""), arg)
		} else if fn, _, ok := CalleeOf(c.Pass.TypesInfo, a); ok && fn.Pkg().Path() == "fmt" && fn.Name() == "Sprintf" && len(a.Args) > 0 {
			if v, ok := c.ConstString(a.Args[0]); ok {
				c.noteOrigin(a.Args[0])
				sql = opaqueText(v, arg)
			}
		} else if ok && c.isStringExpr(a) {
			// A function that rewrites a constant query (Temporal's
			// SwitchTaskQueuesTable(lockTaskQueueQry, v)) runs that query.
			for _, x := range a.Args {
				if v, ok := c.ConstString(x); ok && sqlparse.LooksLikeSQL(v) {
					c.noteOrigin(x)
					sql = opaqueText(v, arg)
					break
				}
			}
		}
	case *ast.Ident:
		obj := c.Pass.TypesInfo.Uses[a]
		def, ok := c.Defs[obj]
		if !ok {
			def, ok = c.current[obj]
		}
		if !ok {
			def, ok = c.rangedElem(obj)
		}
		if ok {
			s := ""
			if t := c.textOf(def); t != nil {
				s = t.SQL
				c.noteOrigin(def)
			} else if v, ok := c.ConstString(def); ok {
				s = v
				c.noteOrigin(def)
			}
			if s != "" {
				// With the constants added to it since, the fullest variant.
				c.noteRanges(c.appendOrigins[obj])
				sql = opaqueText(s+strings.Join(c.appends[obj], ""), arg)
			} else if call, isCall := ast.Unparen(def).(*ast.CallExpr); isCall {
				if t := c.indirectText(call); t != nil { // q, args, err := builder.ToSql()
					sql = opaqueText(t.SQL, arg)
				}
			}
		}
	}
	if sql == nil {
		// A statement handed back by another function, as a string or
		// in a struct field, or made by Sprintf into a variable (eval.go).
		switch arg.(type) {
		case *ast.Ident, *ast.SelectorExpr, *ast.CallExpr:
			c.evalSteps = 0
			if s, ok := c.evalString(arg, nil, 0); ok && sqlparse.LooksLikeSQL(s) {
				sql = opaqueText(s, arg)
			}
		}
	}
	if sql != nil {
		sql.Node, sql.Known, sql.Ref = arg, true, true
	}
	return sql
}

// opaqueText is a text that maps as a whole to the expression e.
func opaqueText(s string, e ast.Node) *sqltext.Text {
	var b sqltext.Builder
	b.Opaque(s, e)
	return b.Text()
}

// RunByQuery reports a text a query call of the package runs whole: a
// query argument itself, or the literal or constant a query's text was
// made from (a Sprintf format, a variable's value).
func (c *Package) RunByQuery(t *sqltext.Text) bool {
	if t.Known {
		return true
	}
	if t.Node == nil {
		return false
	}
	if c.queryOrigins == nil {
		c.queryOrigins = map[token.Pos]bool{}
		for _, q := range c.Queries {
			if q.Text == nil {
				continue
			}
			if q.Text.Node != nil {
				c.queryOrigins[q.Text.Node.Pos()] = true
			}
			for _, o := range q.Text.Origins {
				c.queryOrigins[o[0]] = true
			}
			if ct := c.ConstTexts[q.Text.Const]; ct != nil && ct.Node != nil {
				c.queryOrigins[ct.Node.Pos()] = true
			}
		}
	}
	return c.queryOrigins[t.Node.Pos()]
}

// Source returns the content of the Go file holding pos.
func (c *Package) Source(pos token.Pos) []byte {
	f := c.Pass.Fset.File(pos)
	if f == nil {
		return nil
	}
	if data, ok := c.files[f.Name()]; ok {
		return data
	}
	var data []byte
	if c.Pass.ReadFile != nil {
		data, _ = c.Pass.ReadFile(f.Name())
	}
	if c.files == nil {
		c.files = map[string][]byte{}
	}
	c.files[f.Name()] = data
	return data
}

// FuncKey names a function across packages.
func FuncKey(fn *types.Func) string {
	if fn == nil {
		return ""
	}
	// fn.FullName, without its type printer for the common receivers: a
	// package's every query asks for the key of its function.
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil && fn.Pkg() != nil {
		t, star := sig.Recv().Type(), ""
		if p, ok := t.(*types.Pointer); ok {
			t, star = p.Elem(), "*"
		}
		if n, ok := t.(*types.Named); ok && n.TypeArgs() == nil && n.TypeParams() == nil && n.Obj().Pkg() == fn.Pkg() {
			return "(" + star + fn.Pkg().Path() + "." + n.Obj().Name() + ")." + fn.Name()
		}
	}
	return fn.FullName()
}

// LitKey names a function literal across packages.
func LitKey(lit *ast.FuncLit) string { return fmt.Sprintf("func@%d", lit.Pos()) }

// InTest reports a position in a _test.go file.
func (c *Package) InTest(pos token.Pos) bool {
	f := c.Pass.Fset.File(pos)
	return f != nil && strings.HasSuffix(f.Name(), "_test.go")
}

// OwnInterfaceMethod reports a method of an interface pkg declares: the
// module stage resolves its calls to the module's implementations.
func OwnInterfaceMethod(fn *types.Func, pkg *types.Package) bool {
	return fn.Pkg() == pkg && IsInterfaceMethod(fn)
}

// IsInterfaceMethod reports a method declared by an interface.
func IsInterfaceMethod(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	return ok && sig.Recv() != nil && types.IsInterface(sig.Recv().Type())
}

// Key is funcKey, made once per function of a package's analysis: the
// summary's many mentions of a function share one string.
func (c *Package) Key(fn *types.Func) string {
	if k, ok := c.keys[fn]; ok {
		return k
	}
	if c.keys == nil {
		c.keys = make(map[*types.Func]string, len(c.Funcs))
	}
	k := FuncKey(fn)
	c.keys[fn] = k
	return k
}

// PointerTypes returns *T for every type T the package declares that is
// no interface: the method sets that may implement one. Made once: each
// call through an interface asks (Scope.Names sorts the scope anew).
func (c *Package) PointerTypes() []*types.Pointer {
	if c.pointers != nil {
		return *c.pointers
	}
	var out []*types.Pointer
	scope := c.Pass.Pkg.Scope()
	for _, name := range scope.Names() {
		if tn, ok := scope.Lookup(name).(*types.TypeName); ok && !types.IsInterface(tn.Type()) {
			out = append(out, types.NewPointer(tn.Type()))
		}
	}
	c.pointers = &out
	return out
}

// IsNamed reports whether t is pkg.name (or, with ptr, *pkg.name).
func IsNamed(t types.Type, pkg, name string, ptr bool) bool {
	if t == nil {
		return false
	}
	if ptr {
		p, ok := t.(*types.Pointer)
		if !ok {
			return false
		}
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

func (c *Package) FileOf(pos token.Pos) *ast.File {
	for _, f := range c.Pass.Files {
		if f.FileStart <= pos && pos <= f.FileEnd {
			return f
		}
	}
	return nil
}

func (c *Package) note(pos token.Pos, format string, args ...any) {
	if c.Settings.Verbose {
		fmt.Fprintf(os.Stderr, "%s: dsqllint: %s\n", c.Pass.Fset.Position(pos), fmt.Sprintf(format, args...))
	}
}

// Parsed is a text that parsed as SQL.
type Parsed struct {
	Text   *sqltext.Text
	Script *sqlparse.Script
	Dirs   []*directive // -- dsqllint:ignore comments inside the SQL
}

// StatementAt returns the span of the statement of s holding offset off.
func StatementAt(s *sqlparse.Script, off int) sqlparse.Span {
	for _, st := range s.Stmts {
		if st.Span.Start <= off && off < st.Span.End {
			return st.Span
		}
	}
	return sqlparse.Span{Start: off, End: off}
}

// Once reports a text that runs Once, or never on DSQL, so that no other
// process races for the rows it writes: a test's, a test-support
// package's, a SQLite driver's, and a migration's (a .sql file in the
// schema's directories, or a Go file there of a package named for
// migrations, a function of a Go migration list, a package of
// migrations). A store's own code beside its schema.sql runs every day.
func (c *Package) Once(t *sqltext.Text) bool {
	if t.Node != nil && (c.migrations || c.InTest(t.Node.Pos())) || t.Scope != nil && c.onceScopes[t.Scope] {
		return true
	}
	if c.testSupport {
		return true // a package that exists to test others (riverdrivertest) races no one
	}
	if t.Node != nil && len(c.Settings.MigrationDirs) == 0 {
		return false // (most texts: the file's name decides nothing more)
	}
	file := ""
	if f := c.Pass.Fset.File(t.Pos(0, false)); f != nil {
		file = f.Name()
	}
	if t.Node == nil && c.Settings.SQLiteQueries(file) {
		return true // a SQLite driver's queries never run on DSQL
	}
	inMigrations := c.Settings.MigrationDirs[filepath.Dir(file)]
	return inMigrations && (t.Node == nil || strings.Contains(path.Base(c.Pass.Pkg.Path()), "migrat"))
}

// migrationScopes returns the functions that change the schema (CREATE
// TABLE, ALTER TABLE ...), and their siblings in a composite literal that
// holds one of them: a Go migration list (`var migrations =
// []func(*sql.Tx) error{...}`, `{Version: 3, Up: func...}`), whose every
// step runs once. A package where at least half the functions that run
// SQL change the schema (one function per version), or one named for
// migrations that changes it at all, is all migrations (whole).
func migrationScopes(pkg string, files []*ast.File, parsed []*Parsed) (scopes map[ast.Node]bool, whole bool) {
	var ddl map[ast.Node]bool // made at the first change: most packages have none
	for _, p := range parsed {
		if p.Text.Scope != nil && slices.ContainsFunc(p.Script.Stmts, func(st *sqlparse.Statement) bool { return st.Create != nil || len(st.Changes) > 0 }) {
			if ddl == nil {
				ddl = map[ast.Node]bool{}
			}
			ddl[p.Text.Scope] = true
		}
	}
	if len(ddl) == 0 {
		return nil, false
	}
	sql := map[ast.Node]bool{}
	for _, p := range parsed {
		if p.Text.Scope != nil {
			sql[p.Text.Scope] = true
		}
	}
	if len(ddl) >= 2 && 2*len(ddl) >= len(sql) || strings.Contains(path.Base(pkg), "migrat") {
		return nil, true
	}
	scopes = maps.Clone(ddl)
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			var funcs []ast.Node
			migrates := false
			ast.Inspect(lit, func(n ast.Node) bool {
				if fl, ok := n.(*ast.FuncLit); ok {
					funcs = append(funcs, fl)
					migrates = migrates || ddl[fl]
					return false
				}
				return true
			})
			if migrates {
				for _, fl := range funcs {
					scopes[fl] = true
				}
			}
			return true
		})
	}
	return scopes, false
}

// Where names a position as evidence is cited: "store/task.go:124",
// relative to the module root.
func (c *Package) Where(pos token.Pos) string {
	tf := c.Pass.Fset.File(pos)
	if tf == nil {
		return ""
	}
	name, ok := c.cited[tf]
	if !ok {
		name = filepath.Base(tf.Name())
		if rel, err := filepath.Rel(c.Settings.Root, tf.Name()); err == nil && c.Settings.Root != "" && filepath.IsLocal(rel) {
			name = filepath.ToSlash(rel)
		}
		if c.cited == nil {
			c.cited = map[*token.File]string{}
		}
		c.cited[tf] = name // every statement of a file cites it: named once
	}
	return name + ":" + strconv.Itoa(tf.Line(pos))
}

// Package is what the walk of a package finds: its SQL texts, where they
// run, and the data flow of strings that made them.
type Package struct {
	// Texts are the package's candidate SQL texts, in source order, then
	// those of its embedded and sqlc query files; Parsed those that parse
	// as SQL, each parsed once.
	Texts  []*sqltext.Text
	Parsed []*Parsed
	// Err is our own failure (a recovered panic), reported after the
	// package's findings.
	Err error
	// OtherDatabase names the database other than PostgreSQL whose SQL
	// the package holds beside its module's PostgreSQL backend
	// (OtherDatabase): none of its texts is checked, nor its transactions'
	// options.
	OtherDatabase string
	// otherFiles are the package's files of another database's SQL, by
	// name (otherDatabaseFiles); otherRegions its branches that run only
	// against another database (noteDialectBranch).
	otherFiles   map[string]string
	otherRegions []dialectRegion
	// choosesPostgres says the package's own branches name PostgreSQL
	// among other databases (case "postgres":, conf.UsePostgreSQL): it
	// serves PostgreSQL, whatever other driver it registers.
	choosesPostgres bool
	// ConflictBranches are the if statements and case clauses that test
	// for SQLSTATE 40001 by its code (noteConflictBranch): what they
	// return is what a serialization failure becomes.
	ConflictBranches []ast.Node
	// cited caches how Where names each file.
	cited map[*token.File]string
	// pointers caches PointerTypes.
	pointers *[]*types.Pointer

	Pass     *analysis.Pass
	Settings *modconf.Settings
	// DB says the package reaches a database package (ReachesDB).
	DB bool
	// Funcs maps the package's functions to their declarations, to follow
	// a transaction into the helpers a function calls.
	Funcs map[*types.Func]*ast.FuncDecl
	// Calls lists, per function, the Calls it makes to package functions;
	// callers indexes them by the function called (callersOf).
	Calls map[ast.Node][]localCall
	// Uses lists, per named constant, its Uses as a query argument.
	Uses map[types.Object][]*sqltext.Text
	// Defs maps local variables defined once to their initial value, to
	// follow q := "..."; tx.Exec(q).
	Defs map[types.Object]ast.Expr
	// queryOrigins are where the texts query calls run start (RunByQuery),
	// made on first use.
	queryOrigins map[token.Pos]bool
	// testSupport marks a package that exists to test others.
	testSupport bool
	// current maps a local string variable assigned again, in the block
	// that defined it, to the value it holds at the walk's place;
	// defBlocks are those blocks.
	current   map[types.Object]ast.Expr
	defBlocks map[types.Object]ast.Node
	// results maps variables defined once as the first of several results
	// of a call (q, err := adapter.NextOffsetQuery(...)) to that call,
	// for data flow of strings.
	results map[types.Object]ast.Expr
	// appends are the strings known at analysis time added to such a
	// variable afterwards (`if forUpdate { q += " FOR UPDATE" }`, `q += " "
	// + lock` with lock a dialect's clause): its text is read with all of
	// them, the fullest of its variants. A strings.Builder's WriteString
	// calls are kept the same way, under the builder.
	appends map[types.Object][]string
	// appendOrigins are where the appended strings were written.
	appendOrigins map[types.Object][][2]token.Pos
	// builderSteps are the chains a squirrel builder variable defined once
	// is extended with (`q = q.Where(...)`), in order.
	builderSteps map[types.Object][]ast.Expr
	// constReturns caches the constant strings a function returns.
	constReturns map[*types.Func][]ast.Expr
	// changed are the package variables the code changes (changedVars).
	changed map[*types.Var]bool
	// runWhole are the embedded .sql files a query call runs as one
	// string (RunWhole).
	runWhole map[string]bool
	// ranged are the variables of ranges over lists, each with the list
	// (noteRangedList, rangedElem).
	ranged map[types.Object]ast.Expr
	// Queries, begins and flow findings feed the Go-flow rules.
	Queries []*Query
	// Scripts are the package's SQL texts as parsed.
	Scripts map[*sqltext.Text]*sqlparse.Script
	// sinkQueries are the calls of the package's own query functions
	// (sinks.go).
	sinkQueries []*Query
	// nonSQL are the constants and variables run through a non-SQL client
	// (notsql.go).
	nonSQL map[types.Object]bool
	// Generated are the sqlc-Generated Go files whose query file is
	// checked instead (sqlc.go).
	Generated  map[*ast.File]bool
	onceScopes map[ast.Node]bool      // the functions of migrations
	migrations bool                   // the package is all migrations
	keys       map[*types.Func]string // funcKey, made once
	// files caches Go source for building fixes.
	files map[string][]byte
	// fields maps function-typed struct fields to what the package
	// assigns them (fieldFuncs).
	fields map[*types.Var][]*types.Func
	// sprintfs are the fmt.Sprintf calls whose format is a literal, by it.
	sprintfs map[*ast.BasicLit]*ast.CallExpr
	// ConstTexts are the texts named constants declare, and sqlcStmts
	// where each query of the package's sqlc query files starts: where a
	// statement another text runs is reported (stmtAt).
	ConstTexts map[types.Object]*sqltext.Text
	SqlcStmts  map[string]token.Pos
	// FlowSites are the nodes the transaction flow reads, in source order
	// (observeSites).
	FlowSites []flowSite
	// Directives are the //dsqllint:ignore comments of the Go files.
	Directives []*directive
	// evalSteps counts the work of one evaluation of a query argument
	// (eval.go), which maxEvalSteps bounds; prov collects where the text
	// evaluated was written.
	evalSteps int
	prov      *provenance
}

type localCall struct {
	Fn   *ast.FuncDecl
	Call *ast.CallExpr
	Site // a call inside a closure passed to a retry helper, or in a loop, may be retried
}

func IsSQLFile(name string) bool { return strings.EqualFold(filepath.Ext(name), ".sql") }

// flowSite is a node the transaction flow reads (observeSites), where it
// sits, and for a call its callee (nil for a call of a value).
type flowSite struct {
	Node ast.Node
	Site Site
	Fn   *types.Func
}

// Key is the callee's key: for a query method of an interface or a
// wrapper, the driver method it stands for. It is not kept: the walk
// meets thousands of calls, and few are queries.
func (s *flowSite) Key() Callee {
	if d, _, ok := dbtxCallee(s.Fn); ok {
		return d
	}
	_, key, _ := calleeKey(s.Fn)
	return key
}

// Parse parses the texts that look like SQL, once, in order, and indexes
// what the flow and the rules look up: each text's script, the texts
// named constants declare, where each sqlc query starts, and which
// functions are migrations.
func (c *Package) Parse(texts []*sqltext.Text) []*Parsed {
	var parsed []*Parsed
	for _, t := range texts {
		if (!t.Known && !sqlparse.LooksLikeSQL(t.SQL)) || (t.Const != nil && c.nonSQL[t.Const]) {
			continue
		}
		if !t.Known && t.Node != nil && len(c.Uses[t.Const]) == 0 && sqlparse.BareUtility(t.SQL) {
			continue // "lock held": a metric's name, not LOCK TABLE held
		}
		s := sqlparse.Parse(t.SQL)
		if s.Skipped != "" {
			c.note(t.Pos(0, false), "skipped SQL text: %s", s.Skipped)
			continue
		}
		parsed = append(parsed, &Parsed{Text: t, Script: c.nameHoles(t, s), Dirs: c.sqlDirectives(t, s)})
	}
	c.onceScopes, c.migrations = migrationScopes(c.Pass.Pkg.Path(), c.Pass.Files, parsed)
	scripts := make(map[*sqltext.Text]*sqlparse.Script, len(parsed))
	c.ConstTexts, c.SqlcStmts = map[types.Object]*sqltext.Text{}, map[string]token.Pos{}
	for _, p := range parsed {
		scripts[p.Text] = p.Script
		t := p.Text
		switch {
		case t.Const != nil && !t.Ref:
			c.ConstTexts[t.Const] = t
		case t.Node == nil:
			for _, st := range p.Script.Stmts {
				if name, _ := sqlparse.SqlcQuery(p.Script.Text, st.Span.Start); name != "" {
					c.SqlcStmts[name] = t.Pos(st.Span.Start, false)
				}
			}
		}
	}
	c.Scripts = scripts
	return parsed
}

// SourceText is a node's source.
func (c *Package) SourceText(n ast.Node) string {
	src := c.Source(n.Pos())
	if src == nil {
		return ""
	}
	return string(src[c.Pass.Fset.Position(n.Pos()).Offset:c.Pass.Fset.Position(n.End()).Offset])
}
