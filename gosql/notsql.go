package gosql

import (
	"go/ast"
	"go/types"
	"path"
	"slices"
	"strings"
)

// Strings a package runs through a client of another query language are
// not SQL, however much they read like it: Cassandra CQL through gocql
// (`UPDATE namespaces SET ... WHERE namespaces_partition = ? and name = ?`),
// ClickHouse, Spanner and BigQuery SQL, Cypher, DynamoDB PartiQL.

// nonSQLClient reports a package of such a client, or a project's own
// wrapper of gocql (a package named gocql or gocqlx).
func nonSQLClient(path string) bool {
	if slices.ContainsFunc(nonSQLClients, func(p string) bool { return underPath(path, p) }) {
		return true
	}
	last := path[strings.LastIndexByte(path, '/')+1:]
	return last == "gocql" || last == "gocqlx"
}

var nonSQLClients = []string{
	"github.com/gocql/gocql", "github.com/apache/cassandra-gocql-driver", "github.com/scylladb/gocqlx",
	"github.com/ClickHouse/clickhouse-go", "cloud.google.com/go/spanner", "cloud.google.com/go/bigquery",
	"github.com/neo4j/neo4j-go-driver", "github.com/aws/aws-sdk-go-v2/service/dynamodb", "github.com/aws/aws-sdk-go/service/dynamodb",
}

// sqlClient reports a package through which a package runs PostgreSQL or
// MySQL SQL: the drivers and builders the Go-flow rules follow, and the
// common ORMs and drivers besides.
func sqlClient(path string) bool {
	if DbPackages[path] {
		return true
	}
	for _, p := range []string{
		"github.com/jackc/pgx", "github.com/lib/pq", "github.com/go-sql-driver/mysql", "gorm.io/", "github.com/uptrace/bun",
		"entgo.io/ent", "github.com/Masterminds/squirrel", "github.com/doug-martin/goqu", "github.com/go-pg/pg",
	} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// OnlyNonSQLClient reports a package whose only database client is a
// non-SQL one: none of its strings is SQL.
func OnlyNonSQLClient(pkg *types.Package) bool {
	if pkg == nil {
		return false
	}
	other := false
	for _, imp := range pkg.Imports() {
		switch p := imp.Path(); {
		case sqlClient(p):
			return false
		case nonSQLClient(p):
			other = true
		}
	}
	return other
}

// markNonSQLArgs records the constants and variables a non-SQL call
// runs, directly or as the format of fmt.Sprintf, so that their texts
// are not checked.
func (c *Package) markNonSQLArgs(call *ast.CallExpr) {
	info := c.Pass.TypesInfo
	for _, a := range call.Args {
		a = ast.Unparen(a)
		if inner, ok := a.(*ast.CallExpr); ok && isSprintf(info, inner) && len(inner.Args) > 0 {
			a = ast.Unparen(inner.Args[0])
		}
		if id := Ident(a); id != nil {
			if obj := info.Uses[id]; obj != nil {
				c.nonSQL[obj] = true
			}
		}
	}
}

// nonSQLArg reports whether the expression on top of the stack is an
// argument of a non-SQL call, of a test's expectation or assertion, or of
// a substring search, directly or through fmt.Sprintf or regexp.QuoteMeta.
func (c *Package) nonSQLArg(stack []ast.Node) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.ParenExpr, *ast.BinaryExpr:
			continue
		case *ast.CallExpr:
			fn, key, ok := CalleeOf(c.Pass.TypesInfo, p)
			switch {
			case !ok:
				return false
			case nonSQLClient(key.Pkg) || expectation(fn) || assertion(key):
				return true
			case key.Pkg == "regexp":
				return true // a pattern (QuoteMeta's too, whatever takes it), or the subject of a match
			case key.Pkg == "fmt" && strings.HasPrefix(key.Name, "Sprint"):
				continue
			}
			return false
		case *ast.KeyValueExpr:
			continue
		case *ast.CompositeLit:
			// A field of a non-SQL client's request
			// (databasepb.CreateDatabaseRequest{CreateStatement: ...}).
			n, ok := types.Unalias(c.Pass.TypesInfo.TypeOf(p)).(*types.Named)
			return ok && n.Obj().Pkg() != nil && nonSQLClient(n.Obj().Pkg().Path())
		}
		return false
	}
	return false
}

// expectation reports a function that tells a test double what to
// expect (mock.ExpectExec("DELETE FROM t"), db.EXPECT().ExecContext(
// gomock.Any(), "VACUUM")): the text handed to it is no statement the
// program runs, and the one it mirrors is judged where it runs. A method
// of a type named Mock… or Fake… (mockgen, mockery, counterfeiter) or a
// function of a package named for mocks (gomock, go-sqlmock, pgxmock,
// mocks).
func expectation(fn *types.Func) bool {
	if strings.Contains(strings.ToLower(lastElem(fn.Pkg().Path())), "mock") {
		return true
	}
	n := RecvNamed(fn)
	return n != nil && (strings.HasPrefix(n.Obj().Name(), "Mock") || strings.HasPrefix(n.Obj().Name(), "Fake"))
}

// assertion reports a function that compares a text with another, a
// test's assertion (assert.Equal(t, "SELECT ...", got), require.Contains)
// or a search for a substring (strings.Contains(captured, "DELETE FROM
// t")): the text handed to it is a pattern, not a statement anything runs.
func assertion(key Callee) bool {
	switch key.Pkg {
	case "strings", "bytes":
		switch key.Name {
		case "Contains", "ContainsAny", "HasPrefix", "HasSuffix", "Index", "LastIndex", "Count", "EqualFold", "TrimPrefix", "TrimSuffix", "CutPrefix", "CutSuffix", "Cut":
			return true
		}
		return false
	}
	return slices.ContainsFunc(assertionPackages, func(p string) bool { return underPath(key.Pkg, p) })
}

// underPath reports an import path that is root or a package below it.
func underPath(path, root string) bool {
	return strings.HasPrefix(path, root) && (len(path) == len(root) || path[len(root)] == '/')
}

// assertionPackages are the test assertion libraries.
var assertionPackages = []string{
	"github.com/stretchr/testify/assert", "github.com/stretchr/testify/require", "gotest.tools/assert", "gotest.tools/v3/assert",
	"github.com/google/go-cmp/cmp", "github.com/onsi/gomega", "github.com/matryer/is", "github.com/frankban/quicktest",
	"github.com/alecthomas/assert", "github.com/go-quicktest/qt",
}

// lastElem is an import path's last element, a major version suffix
// (pgxmock/v4) skipped.
func lastElem(p string) string {
	last := path.Base(p)
	if len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		return path.Base(path.Dir(p))
	}
	return last
}

func isSprintf(info *types.Info, call *ast.CallExpr) bool {
	fn, key, ok := CalleeOf(info, call)
	return ok && key.Pkg == "fmt" && strings.HasPrefix(fn.Name(), "Sprint")
}
