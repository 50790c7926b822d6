package txcheck

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// goLock is a row lock spelled as Go, in function scope.
type goLock struct {
	pos, end token.Pos
	scope    ast.Node
	strength sqlparse.Strength
}

// gormLocking checks clause.Locking{Strength: ..., Options: ...}.
func (c *checker) gormLocking(lit *ast.CompositeLit, scope ast.Node) {
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, _ := kv.Key.(*ast.Ident)
		tv := c.Pass.TypesInfo.Types[kv.Value]
		if key == nil || tv.Value == nil || tv.Value.Kind() != constant.String {
			continue
		}
		v := strings.ToUpper(strings.TrimSpace(constant.StringVal(tv.Value)))
		switch key.Name {
		case "Strength":
			if s, ok := gormStrengths[v]; ok || v == "UPDATE" {
				if !ok {
					s = sqlparse.ForUpdate
				}
				c.ormLocks = append(c.ormLocks, goLock{kv.Value.Pos(), kv.Value.End(), scope, s})
			}
			if s := c.sharedStrength(v); s != "" {
				c.reportGo("DSQL001", kv.Value.Pos(), kv.Value.End(), "gorm clause.Locking{Strength: \""+v+"\"} renders "+s+", which "+ormShareLock,
					c.replaceValue(kv.Value, "UPDATE", "LockingStrengthUpdate"))
			}
		case "Options":
			if v == "NOWAIT" || v == "SKIP LOCKED" {
				c.reportWaitPolicy(kv.Value, "gorm clause.Locking{Options: \""+v+"\"}")
			}
		}
	}
}

// ormShareLock finishes DSQL001's message for the ORM forms.
const ormShareLock = "Aurora DSQL rejects (0A000 locking clauses other than FOR UPDATE/FOR KEY SHARE are not supported); use FOR UPDATE, or drop the lock if every later write of the row is fenced"

// gormStrengths are clause.Locking strengths other than UPDATE.
var gormStrengths = map[string]sqlparse.Strength{
	"SHARE": sqlparse.ForShare, "NO KEY UPDATE": sqlparse.ForNoKeyUpdate, "KEY SHARE": sqlparse.ForKeyShare,
}

// sharedStrength names the clause a gorm strength renders when DSQL001
// applies to it.
func (c *checker) sharedStrength(v string) string {
	if s, ok := gormStrengths[v]; ok && c.Settings.Cfg.RejectsStrength(s) {
		return s.String()
	}
	return ""
}

// replaceValue rewrites a string literal to lit, or a gorm constant
// reference to the constant named constName in the same package.
func (c *checker) replaceValue(e ast.Expr, lit, constName string) *analysis.SuggestedFix {
	fix := &analysis.SuggestedFix{Message: "Lock FOR UPDATE instead"}
	switch v := e.(type) {
	case *ast.BasicLit:
		fix.TextEdits = []analysis.TextEdit{{Pos: v.Pos(), End: v.End(), NewText: []byte(strconv.Quote(lit))}}
	case *ast.SelectorExpr:
		fix.TextEdits = []analysis.TextEdit{{Pos: v.Sel.Pos(), End: v.Sel.End(), NewText: []byte(constName)}}
	default:
		return nil
	}
	return fix
}

// reportWaitPolicy reports DSQL006 (NOWAIT / SKIP LOCKED) for ORM forms.
func (c *checker) reportWaitPolicy(e ast.Expr, what string) {
	c.reportGo("DSQL006", e.Pos(), e.End(), what+" has no effect under Aurora DSQL's optimistic concurrency: nothing waits and nothing is skipped, so every worker gets the same rows and all but one fail at COMMIT with 40001; "+
		"claim work with a compare-and-swap (UPDATE ... SET owner = $1 WHERE id = $2 AND owner IS NULL) instead", nil)
}

// observeORM checks goqu's ForShare/ForNoKeyUpdate/ForKeyShare and wait
// options, and ent's ForShare and lock actions.
func (c *checker) observeORM(call *ast.CallExpr, fn *types.Func, scope ast.Node) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return
	}
	if fn.Name() == "For" && strings.HasPrefix(fn.Pkg().Path(), gosql.PkgBun) && len(call.Args) == 1 {
		// bun's q.For("UPDATE SKIP LOCKED") renders FOR UPDATE ...
		if v, ok := c.ConstString(call.Args[0]); ok {
			if s, ok := bunStrength(v); ok {
				c.ormLocks = append(c.ormLocks, goLock{call.Args[0].Pos(), call.Args[0].End(), scope, s})
			}
		}
		return
	}
	var strength sqlparse.Strength
	switch fn.Name() {
	case "ForShare":
		strength = sqlparse.ForShare
	case "ForNoKeyUpdate":
		strength = sqlparse.ForNoKeyUpdate
	case "ForKeyShare":
		strength = sqlparse.ForKeyShare
	case "ForUpdate":
	default:
		return
	}
	path := fn.Pkg().Path()
	goqu := path == gosql.PkgGoqu || path == gosql.PkgGoquExp
	ent := path == gosql.PkgEntSQL || takesEntLockOption(fn)
	if !goqu && !ent {
		return
	}
	if strength == 0 {
		c.ormLocks = append(c.ormLocks, goLock{sel.Sel.Pos(), sel.Sel.End(), scope, sqlparse.ForUpdate})
	} else {
		c.ormLocks = append(c.ormLocks, goLock{sel.Sel.Pos(), sel.Sel.End(), scope, strength})
	}
	if strength != 0 && c.Settings.Cfg.RejectsStrength(strength) {
		lib := "goqu"
		if ent {
			lib = "ent"
		}
		fix := &analysis.SuggestedFix{Message: "Call ForUpdate instead", TextEdits: []analysis.TextEdit{{Pos: sel.Sel.Pos(), End: sel.Sel.End(), NewText: []byte("ForUpdate")}}}
		c.reportGo("DSQL001", sel.Sel.Pos(), sel.Sel.End(), lib+" "+fn.Name()+"() renders "+strength.String()+", which "+ormShareLock, fix)
	}
	for _, a := range call.Args {
		c.waitOption(a)
	}
}

// bunStrength is the strength of bun's For clause ("UPDATE SKIP LOCKED",
// "NO KEY UPDATE", "SHARE OF t").
func bunStrength(v string) (sqlparse.Strength, bool) {
	v = strings.ToUpper(strings.TrimSpace(v))
	for _, s := range []sqlparse.Strength{sqlparse.ForNoKeyUpdate, sqlparse.ForKeyShare, sqlparse.ForUpdate, sqlparse.ForShare} {
		if strings.HasPrefix(v, strings.TrimPrefix(s.String(), "FOR ")) {
			return s, true
		}
	}
	return 0, false
}

// waitOption reports goqu.NoWait / goqu.SkipLocked (and exp's) and ent's
// sql.NoWait / sql.SkipLocked, wherever they are passed.
func (c *checker) waitOption(e ast.Expr) {
	ast.Inspect(e, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		obj := c.Pass.TypesInfo.Uses[id]
		if obj == nil || obj.Pkg() == nil || (obj.Name() != "NoWait" && obj.Name() != "SkipLocked") {
			return true
		}
		switch obj.Pkg().Path() {
		case gosql.PkgGoqu, gosql.PkgGoquExp, gosql.PkgEntSQL:
			c.reportWaitPolicy(id, obj.Pkg().Name()+"."+obj.Name())
		}
		return true
	})
}

// takesEntLockOption reports a generated ent query method whose options
// are ent's sql.LockOption.
func takesEntLockOption(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Params().Len() != 1 || !sig.Variadic() {
		return false
	}
	s, ok := sig.Params().At(0).Type().(*types.Slice)
	return ok && gosql.IsNamed(s.Elem(), gosql.PkgEntSQL, "LockOption", false)
}
