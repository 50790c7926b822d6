package gosql

import (
	"go/ast"
	"go/types"
	"strconv"
	"strings"

	"github.com/dsqllint/dsqllint/sqlparse"
	"github.com/dsqllint/dsqllint/sqltext"
)

// nameHoles returns the script with each table it names at run time
// renamed after the Go expression that names it, where that expression
// says which table it is: a field or method of a type (s.table,
// s.Params.TableName, s.messagesTable(topic)) or a package variable, as an
// operand of a concatenation or the argument of a fmt.Sprintf verb.
// Statements naming the same one then share their fences (DSQL003); a
// function's parameter could name any table, and stays unknown. The
// cached script is not changed: the statements renamed are copies.
func (c *Package) nameHoles(t *sqltext.Text, s *sqlparse.Script) *sqlparse.Script {
	var out *sqlparse.Script
	for i, st := range s.Stmts {
		if !namesHole(st) {
			continue
		}
		cp := copyTables(st)
		renamed := false
		rename := func(tb *sqlparse.Table) {
			if tb.Unknown() {
				if name := c.holeName(t, tb.Span.Start); name != "" {
					tb.Name, tb.Schema, renamed = name, "", true
				}
			}
		}
		if cp.Write != nil {
			rename(&cp.Write.Table)
			for j := range cp.Write.Guards {
				rename(&cp.Write.Guards[j].Table)
			}
		}
		if cp.Into != nil {
			rename(cp.Into)
		}
		for _, l := range cp.Locks {
			if l.Select != nil {
				for j := range l.Select.Tables {
					rename(&l.Select.Tables[j])
				}
			}
		}
		if !renamed {
			continue
		}
		if out == nil {
			cs := *s
			cs.Stmts = append([]*sqlparse.Statement(nil), s.Stmts...)
			out = &cs
		}
		out.Stmts[i] = cp
	}
	if out == nil {
		return s
	}
	return out
}

// namesHole reports a statement with a table named at run time.
func namesHole(st *sqlparse.Statement) bool {
	if st.Write != nil && st.Write.Table.Unknown() || st.Into != nil && st.Into.Unknown() {
		return true
	}
	for _, l := range st.Locks {
		if l.Select != nil {
			for _, t := range l.Select.Tables {
				if t.Unknown() {
					return true
				}
			}
		}
	}
	return false
}

// copyTables copies what of st names tables, for renaming.
func copyTables(st *sqlparse.Statement) *sqlparse.Statement {
	cp := *st
	if st.Write != nil {
		w := *st.Write
		w.Guards = append([]sqlparse.Guard(nil), w.Guards...)
		cp.Write = &w
	}
	if st.Into != nil {
		t := *st.Into
		cp.Into = &t
	}
	if len(st.Locks) > 0 {
		cp.Locks = make([]*sqlparse.Lock, len(st.Locks))
		sels := map[*sqlparse.Select]*sqlparse.Select{}
		for i, l := range st.Locks {
			lc := *l
			if l.Select != nil {
				if sels[l.Select] == nil {
					sel := *l.Select
					sel.Tables = append([]sqlparse.Table(nil), sel.Tables...)
					sels[l.Select] = &sel
				}
				lc.Select = sels[l.Select]
			}
			cp.Locks[i] = &lc
		}
	}
	return &cp
}

// holeName names the table at offset off of t's SQL after the Go
// expression that fills it there, or "".
func (c *Package) holeName(t *sqltext.Text, off int) string {
	for _, p := range t.Pieces {
		if off < p.Start || off >= p.End {
			continue
		}
		if p.Opaque {
			return c.exprName(p.Expr)
		}
		lit, ok := t.Node.(*ast.BasicLit)
		call := c.sprintfs[lit]
		if !ok || call == nil {
			return ""
		}
		if k := verbIndex(t.SQL, off); k > 0 && k < len(call.Args) {
			return c.exprName(call.Args[k])
		}
	}
	return ""
}

// verbIndex returns the argument index (from 1) of the printf verb at
// offset off of format, or 0.
func verbIndex(format string, off int) int {
	if off >= len(format) || format[off] != '%' {
		return 0
	}
	if rest := format[off:]; strings.HasPrefix(rest, "%[") { // %[2]s
		if end := strings.IndexByte(rest, ']'); end > 2 {
			if k, err := strconv.Atoi(rest[2:end]); err == nil {
				return k
			}
		}
		return 0
	}
	n := 1
	for i := 0; i < off; i++ {
		if format[i] != '%' {
			continue
		}
		if i+1 < len(format) && format[i+1] == '%' {
			i++
			continue
		}
		n++
	}
	return n
}

// exprName names what a Go expression refers to when it says which table
// it is: Type.field, Type.method, a package variable or function.
func (c *Package) exprName(e ast.Expr) string {
	info := c.Pass.TypesInfo
	switch x := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		return c.exprName(x.Fun)
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[x]; ok {
			root := x.X
			for {
				inner, ok := ast.Unparen(root).(*ast.SelectorExpr)
				if !ok || info.Selections[inner] == nil {
					break
				}
				root = inner.X
			}
			if n := namedOf(info.TypeOf(root)); n != "" {
				path := types.ExprString(x)
				return n + path[len(types.ExprString(root)):]
			}
			_ = sel
			return ""
		}
		if obj := info.Uses[x.Sel]; obj != nil && obj.Parent() == obj.Pkg().Scope() {
			return obj.Pkg().Name() + "." + obj.Name() // pkg.TableName
		}
	case *ast.Ident:
		if obj := info.Uses[x]; obj != nil && obj.Pkg() != nil && obj.Parent() == obj.Pkg().Scope() {
			return obj.Name() // a package variable or function
		}
	}
	return ""
}

// namedOf returns the name of a (pointer to a) named type, or "".
func namedOf(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}
