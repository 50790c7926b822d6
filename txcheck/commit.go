package txcheck

import (
	"go/ast"
	"go/types"

	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// uncheckedCommits reports (DSQL011) the Commit of a transaction that
// writes when its error is dropped: `defer tx.Commit()`, `tx.Commit()` as
// a statement, `_ = tx.Commit()`. PostgreSQL rarely fails a COMMIT;
// Aurora DSQL reports every write conflict there. A transaction that only
// reads loses nothing.
func (d *txStatements) uncheckedCommits(begun map[types.Object]int) {
	for _, b := range d.begins {
		if b.tx == nil || b.scope == nil || begun[b.tx] != 1 || d.InTest(b.call.Pos()) {
			continue
		}
		var write *txStmt
		for _, r := range d.runs(b.scope, b.tx, handedDepth) {
			for i := range r.stmts {
				if r.stmts[i].st.Facts.Class == sqlparse.ClassDML {
					write = &r.stmts[i]
					break
				}
			}
			if write != nil {
				break
			}
		}
		if write == nil {
			continue
		}
		call, how := d.droppedCommit(b)
		if call == nil {
			continue
		}
		where := write.st.Facts.Tag + " at " + d.Where(write.pos)
		if write.via != "" {
			where = write.st.Facts.Tag + " that " + write.via + " runs on it, at " + d.Where(write.pos)
		}
		d.reportGo(rules.UncheckedCommit.ID, call.Pos(), call.End(), rules.UncheckedCommitMessage(how, where), nil)
	}
}

// droppedCommit returns the first call of b's transaction's Commit whose
// error is dropped, in b's function and the closures in it, and how.
func (d *txStatements) droppedCommit(b *beginCall) (*ast.CallExpr, string) {
	_, body := funcParts(b.scope)
	if body == nil {
		return nil, ""
	}
	isCommit := func(e ast.Expr) *ast.CallExpr {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return nil
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Commit" {
			return nil
		}
		if id, ok := ast.Unparen(sel.X).(*ast.Ident); !ok || d.Pass.TypesInfo.Uses[id] != b.tx {
			return nil
		}
		return call
	}
	var found *ast.CallExpr
	var how string
	ast.Inspect(body, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch s := n.(type) {
		case *ast.ExprStmt:
			if c := isCommit(s.X); c != nil {
				found, how = c, "is dropped"
			}
		case *ast.DeferStmt:
			if c := isCommit(s.Call); c != nil {
				found, how = c, "is dropped by defer"
			}
		case *ast.AssignStmt:
			if len(s.Rhs) == 1 && len(s.Lhs) == 1 {
				if id, ok := s.Lhs[0].(*ast.Ident); ok && id.Name == "_" {
					if c := isCommit(s.Rhs[0]); c != nil {
						found, how = c, "is assigned to _"
					}
				}
			}
		}
		return true
	})
	return found, how
}
