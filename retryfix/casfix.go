package retryfix

import (
	"go/ast"
	"strings"

	"github.com/dsqllint/dsqllint/gosql"
	"golang.org/x/tools/go/analysis"
)

// CASFix is DSQL004's fix: it rewrites `_, err := tx.ExecContext(ctx, q, args...)` (also
// `_, err =`, and inside if) to `err := occ.ExecCAS(ctx, tx, q, args...)`,
// and pgx `tx.Exec` to occpgx.ExecCAS, adding the import; pkg is the
// package it imports.
func (c *Rewriter) CASFix(q *gosql.Query) (fix *analysis.SuggestedFix, pkg string) {
	assign, ok := q.Parent.(*ast.AssignStmt)
	if !ok || len(assign.Lhs) != 2 || len(q.Call.Args) < 2 {
		return nil, ""
	}
	if blank, ok := assign.Lhs[0].(*ast.Ident); !ok || blank.Name != "_" {
		return nil, ""
	}
	sel, ok := q.Call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil, ""
	}
	recv := c.Pass.TypesInfo.TypeOf(sel.X)
	var name string
	switch {
	case q.Key == gosql.Callee{Pkg: gosql.PkgSQL, Name: "ExecContext", Method: true} && gosql.IsNamed(recv, gosql.PkgSQL, "Tx", true):
		pkg, name = gosql.PkgOCC, "occ"
	case q.Key == gosql.Callee{Pkg: gosql.PkgPGX, Name: "Exec", Method: true} && gosql.IsNamed(recv, gosql.PkgPGX, "Tx", false):
		pkg, name = gosql.PkgOCCPGX, "occpgx"
	default:
		return nil, ""
	}
	if c.Settings.NoFixes {
		return &analysis.SuggestedFix{}, pkg // there is one; nobody reads its edits
	}
	if c.Source(q.Call.Pos()) == nil {
		return nil, ""
	}
	file := c.FileOf(q.Call.Pos())
	name, importEdit := c.ImportName(file, pkg, name)
	args := []string{c.SourceText(q.Call.Args[0]), c.SourceText(sel.X)}
	for _, a := range q.Call.Args[1:] {
		args = append(args, c.SourceText(a))
	}
	call := name + ".ExecCAS(" + strings.Join(args, ", ")
	if q.Call.Ellipsis.IsValid() {
		call += "..."
	}
	call += ")"
	edits := []analysis.TextEdit{
		{Pos: assign.Lhs[0].Pos(), End: assign.Lhs[1].Pos()},
		{Pos: q.Call.Pos(), End: q.Call.End(), NewText: []byte(call)},
	}
	if importEdit != nil {
		edits = append(edits, *importEdit)
	}
	return &analysis.SuggestedFix{Message: "Use " + name + ".ExecCAS, which fails with ConditionFailedError unless one row changed", TextEdits: edits}, pkg
}
