package txcheck

import (
	"go/ast"
	"go/types"
	"slices"

	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// uncheckedCommits reports (DSQL011) the Commit of a transaction that
// writes when its error is dropped: `defer tx.Commit()`, `tx.Commit()` as
// a statement, `_ = tx.Commit()`. PostgreSQL rarely fails a COMMIT;
// Aurora DSQL reports every write conflict there. A transaction that only
// reads loses nothing.
func (d *txStatements) uncheckedCommits(begun map[types.Object]int, runs map[scopedObj][]txRun) {
	for _, b := range d.begins {
		if b.tx == nil || b.scope == nil || begun[b.tx] != 1 || d.InTest(b.call.Pos()) {
			continue
		}
		for _, dc := range d.droppedCommits(b) {
			if write := d.endedWrite(runs[scopedObj{b.scope, b.tx}], dc); write != nil {
				where := write.st.Facts.Tag + " at " + d.Where(write.pos)
				if write.via != "" {
					where = write.st.Facts.Tag + " that " + write.via + " runs on it, at " + d.Where(write.pos)
				}
				d.reportGo(rules.UncheckedCommit.ID, dc.call.Pos(), dc.call.End(), rules.UncheckedCommitMessage(dc.how, where), nil)
				break // one finding per transaction
			}
		}
	}
}

// endedWrite returns the first write a dropped Commit ends: any, for a
// deferred one; one before it, on a path that reaches it, for one in line
// (a Commit in the branch that found nothing to write ends a read).
func (d *txStatements) endedWrite(runs []txRun, dc droppedCommit) *txStmt {
	for _, r := range runs {
		if dc.how != droppedByDefer && (r.call.Pos() > dc.call.Pos() || d.exclusive(r.call, dc.call)) {
			continue
		}
		if i := slices.IndexFunc(r.stmts, func(st txStmt) bool { return st.st.Facts.Class == sqlparse.ClassDML }); i >= 0 {
			return &r.stmts[i]
		}
	}
	return nil
}

const droppedByDefer = "is dropped by defer"

// droppedCommit is a Commit whose error is dropped, and how.
type droppedCommit struct {
	call *ast.CallExpr
	how  string
}

// droppedCommits returns the calls of b's transaction's Commit whose
// error is dropped, in b's function and the closures in it.
func (d *txStatements) droppedCommits(b *beginCall) []droppedCommit {
	_, body := funcParts(b.scope)
	if body == nil {
		return nil
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
	var out []droppedCommit
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.ExprStmt:
			if c := isCommit(s.X); c != nil {
				out = append(out, droppedCommit{c, "is dropped"})
			}
		case *ast.DeferStmt:
			if c := isCommit(s.Call); c != nil {
				out = append(out, droppedCommit{c, droppedByDefer})
			}
		case *ast.AssignStmt:
			if len(s.Rhs) == 1 && len(s.Lhs) == 1 {
				if id, ok := s.Lhs[0].(*ast.Ident); ok && id.Name == "_" {
					if c := isCommit(s.Rhs[0]); c != nil {
						out = append(out, droppedCommit{c, "is assigned to _"})
					}
				}
			}
		}
		return true
	})
	return out
}
