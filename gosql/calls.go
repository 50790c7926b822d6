package gosql

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

type Callee struct {
	Pkg, Name string
	Method    bool
}

// queryArgs gives, for the query methods and functions of database/sql,
// sqlx and pgx v5, the index of the argument that holds the SQL text.
var queryArgs = func() map[Callee]int {
	m := map[Callee]int{}
	add := func(pkg string, method bool, idx int, names ...string) {
		for _, n := range names {
			m[Callee{pkg, n, method}] = idx
		}
	}
	const sql, sqlx = "database/sql", "github.com/jmoiron/sqlx"
	add(sql, true, 0, "Exec", "Query", "QueryRow", "Prepare")
	add(sql, true, 1, "ExecContext", "QueryContext", "QueryRowContext", "PrepareContext")
	add(sqlx, true, 0, "NamedExec", "NamedQuery", "Queryx", "QueryRowx", "MustExec", "Preparex", "PrepareNamed", "Rebind", "Exec", "Query", "QueryRow", "Prepare")
	add(sqlx, true, 1, "Get", "Select", "NamedExecContext", "NamedQueryContext", "QueryxContext", "QueryRowxContext",
		"MustExecContext", "PreparexContext", "PrepareNamedContext", "ExecContext", "QueryContext", "QueryRowContext", "PrepareContext")
	add(sqlx, true, 2, "GetContext", "SelectContext")
	add(sqlx, false, 0, "In", "Named")
	add(sqlx, false, 1, "Rebind", "NamedExec", "MustExec", "NamedQuery")
	add(sqlx, false, 2, "Get", "Select", "NamedExecContext", "MustExecContext", "NamedQueryContext")
	add(sqlx, false, 3, "GetContext", "SelectContext")
	for _, pgx := range []string{"github.com/jackc/pgx/v5", "github.com/jackc/pgx/v5/pgxpool", "github.com/jackc/pgx/v5/pgconn"} {
		add(pgx, true, 1, "Exec", "Query", "QueryRow")
		add(pgx, true, 2, "Prepare")
	}
	add("github.com/jackc/pgx/v5", true, 0, "Queue")
	for _, occ := range []string{"github.com/dsqllint/dsqllint/runtime/occ", "github.com/dsqllint/dsqllint/runtime/occpgx"} {
		add(occ, false, 2, "ExecWithRetry")
		add(occ, false, 3, "ExecWithRetryOpts")
	}
	return m
}()

// CalleeOf resolves the function or method a call invokes.
func CalleeOf(info *types.Info, call *ast.CallExpr) (*types.Func, Callee, bool) {
	return calleeKey(typeutil.Callee(info, call))
}

// calleeKey is CalleeOf for the object a call calls.
func calleeKey(obj types.Object) (*types.Func, Callee, bool) {
	fn, ok := obj.(*types.Func)
	if !ok || fn.Pkg() == nil {
		return nil, Callee{}, false
	}
	sig, _ := fn.Type().(*types.Signature)
	return fn, Callee{fn.Pkg().Path(), fn.Name(), sig != nil && sig.Recv() != nil}, true
}

// RecvNamed returns the named type whose method fn is (T or *T), or nil
// for a function or an interface's method of an unnamed type.
func RecvNamed(fn *types.Func) *types.Named {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := types.Unalias(t).(*types.Named)
	return n
}

// dbtxCallee maps a query method of an interface — sqlc's DBTX, a
// project's own Querier — to the database/sql or pgx method it stands for,
// by name and by a string where the SQL goes. A project's own type that
// wraps sqlx with methods of sqlx's shape (Temporal's plugins:
// `func (pdb *db) GetContext(ctx, dest any, query string, args ...any)`)
// counts too; its variadic arguments tell it from a cache's Get.
//
// A wrapper that takes more before the query (a shard, a name:
// `GetContext(ctx, shardID int, dest any, query string, args ...any)`)
// has it as the string just before its variadic arguments; shift says how
// far right of the driver method's query argument that is.
func dbtxCallee(fn *types.Func) (_ Callee, shift int, _ bool) {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil || nonSQLClient(fn.Pkg().Path()) || DbPackages[fn.Pkg().Path()] {
		return Callee{}, 0, false // (gocql's Session.Query runs CQL)
	}
	iface := types.IsInterface(sig.Recv().Type())
	c := Callee{PkgSQL, fn.Name(), true}
	switch fn.Name() {
	case "ExecContext", "QueryContext", "QueryRowContext":
	case "Exec", "Query", "QueryRow":
		if sig.Params().Len() > 0 && IsNamed(sig.Params().At(0).Type(), "context", "Context", false) {
			c.Pkg = PkgPGX // pgx's shape: (ctx, sql, args...)
		}
	case "GetContext", "SelectContext", "Get", "Select", "NamedExecContext", "NamedQueryContext":
		c.Pkg = PkgSQLX
	default:
		return Callee{}, 0, false
	}
	i, n := queryArgs[c], sig.Params().Len()
	if n <= i {
		return Callee{}, 0, false
	}
	if !IsStringType(sig.Params().At(i).Type()) {
		if !sig.Variadic() || n-2 <= i || n-2-i > 2 || !IsStringType(sig.Params().At(n-2).Type()) {
			return Callee{}, 0, false
		}
		shift = n - 2 - i
	}
	if !iface && !sig.Variadic() && !strings.HasPrefix(fn.Name(), "Named") {
		return Callee{}, 0, false
	}
	return c, shift, true
}

func IsStringType(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.String
}

// queryArg returns the SQL argument of a call to a known query method.
func queryArg(info *types.Info, call *ast.CallExpr) ast.Expr {
	fn, c, ok := CalleeOf(info, call)
	if !ok {
		return nil
	}
	shift := 0
	if d, s, ok := dbtxCallee(fn); ok {
		c, shift = d, s
	}
	return queryArgAt(c, shift, call)
}

// QueryArgOf is queryArg for a call whose callee is known.
func QueryArgOf(c Callee, call *ast.CallExpr) ast.Expr { return queryArgAt(c, 0, call) }

// queryArgAt is queryArgOf for a wrapper whose query sits shift arguments
// right of the driver method's.
func queryArgAt(c Callee, shift int, call *ast.CallExpr) ast.Expr {
	if i, ok := queryArgs[c]; ok && i+shift < len(call.Args) {
		return call.Args[i+shift]
	}
	return nil
}

// logMethods are method names of loggers and error constructors: a string
// passed to them is a message, never SQL, even when it reads like SQL.
var logMethods = map[string]bool{}

func init() {
	for _, base := range []string{"Info", "Debug", "Warn", "Warning", "Error", "Fatal", "Panic", "Print", "Log", "Trace", "Notice", "Critical", "Msg", "Skip"} {
		for _, suffix := range []string{"", "f", "w", "ln", "Context", "Ctx", "s"} {
			logMethods[base+suffix] = true
		}
	}
}

// isMessageCall reports whether call prints, logs or builds an error from
// its string arguments.
func isMessageCall(info *types.Info, call *ast.CallExpr) bool {
	switch fn := typeutil.Callee(info, call).(type) {
	case *types.Builtin:
		return fn.Name() == "panic" || fn.Name() == "print" || fn.Name() == "println"
	case *types.Func:
		if fn.Pkg() == nil {
			return false
		}
		switch path := fn.Pkg().Path(); {
		case path == "fmt":
			return !strings.HasPrefix(fn.Name(), "Sprint") && !strings.HasPrefix(fn.Name(), "Append")
		case path == "log" || path == "log/slog" || path == "testing":
			return true
		case IsErrorsPackage(path):
			// An errors package's constructors and wrappers (errors.New,
			// pkg/errors' Wrapf, cockroachdb/errors' Newf) make an error
			// of their text.
			sig, ok := fn.Type().(*types.Signature)
			return ok && sig.Results().Len() == 1 && IsError(sig.Results().At(0).Type())
		}
		return logMethods[fn.Name()]
	}
	return false
}

// DbPackages are the packages whose calls, types and options the Go-flow
// rules follow: database/sql, sqlx, pgx, and the ORMs' locking APIs.
var DbPackages = func() map[string]bool {
	m := map[string]bool{PkgGormClause: true, PkgGoqu: true, PkgGoquExp: true, PkgEntSQL: true}
	for _, t := range []map[Callee]bool{BeginMethods, ExecMethods} {
		for c := range t {
			m[c.Pkg] = true
		}
	}
	for c := range queryArgs {
		m[c.Pkg] = true
	}
	return m
}()

// ReachesDB reports whether pkg is, or imports directly or indirectly, one
// of dbPackages. A package that does not can hold no value of their types
// and call none of their functions, so the Go-flow rules have nothing to
// follow there; its SQL texts are still checked.
func ReachesDB(pkg *types.Package) bool {
	if pkg == nil {
		return true // be thorough when in doubt
	}
	seen := map[*types.Package]bool{}
	var visit func(p *types.Package) bool
	visit = func(p *types.Package) bool {
		if seen[p] {
			return false
		}
		seen[p] = true
		if DbPackages[p.Path()] {
			return true
		}
		return slices.ContainsFunc(p.Imports(), visit)
	}
	return visit(pkg)
}

// CallRecv is the receiver expression of a method call, or nil.
func CallRecv(info *types.Info, call *ast.CallExpr) ast.Expr {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	if s, ok := info.Selections[sel]; !ok || s.Kind() != types.MethodVal {
		return nil // a package-qualified function
	}
	return sel.X
}

// ORMs and query builders spell locking clauses as Go: found by the
// callee's package path and name, so no dependency on those modules.
const (
	PkgGormClause = "gorm.io/gorm/clause"
	PkgGoqu       = "github.com/doug-martin/goqu/v9"
	PkgGoquExp    = "github.com/doug-martin/goqu/v9/exp"
	PkgEntSQL     = "entgo.io/ent/dialect/sql"
	PkgBun        = "github.com/uptrace/bun"
)

// IsErrorsPackage reports the standard library's errors package or one
// of its stand-ins (github.com/pkg/errors, github.com/cockroachdb/errors,
// golang.org/x/xerrors).
func IsErrorsPackage(path string) bool {
	return lastElem(path) == "errors" || lastElem(path) == "xerrors"
}

// IsError reports the type error.
func IsError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}
