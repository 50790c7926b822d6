package sqlparse

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

type protoMessage = protoreflect.Message

// walkMessages calls fn for every message in the tree rooted at m, parents
// first. The tree depth is bounded by the parser (and by MaxDepth).
func walkMessages(m protoreflect.Message, fn func(protoreflect.Message)) {
	if !m.IsValid() {
		return
	}
	fn(m)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walkMessages(l.Get(i).Message(), fn)
			}
		case fd.Kind() == protoreflect.MessageKind && !fd.IsMap():
			walkMessages(v.Message(), fn)
		}
		return true
	})
}

// conds flattens a WHERE clause into its top-level conjuncts, each
// describing a test of a column of the target table.
func conds(n *pg.Node, target Table, upsert bool) []Cond {
	var out []Cond
	var add func(n *pg.Node)
	add = func(n *pg.Node) {
		if be := n.GetBoolExpr(); be != nil {
			switch be.Boolop {
			case pg.BoolExprType_AND_EXPR:
				for _, a := range be.Args {
					add(a)
				}
				return
			case pg.BoolExprType_OR_EXPR:
				c := Cond{Op: OpOr}
				for _, a := range be.Args {
					c.Or = append(c.Or, conds(a, target, upsert))
				}
				out = append(out, c)
				return
			case pg.BoolExprType_NOT_EXPR:
				// NOT (status = ANY($7)): the test of a column, negated.
				if len(be.Args) == 1 && be.Args[0].GetBoolExpr() == nil {
					if c := cond(be.Args[0], target, upsert); c.Column != "" {
						if op, ok := negatedOp[c.Op]; ok {
							c.Op = op
							out = append(out, c)
							return
						}
					}
				}
			}
			out = append(out, Cond{Op: OpOther, InSubquery: hasSubLink(n)})
			return
		}
		out = append(out, cond(n, target, upsert))
	}
	add(n)
	return out
}

func cond(n *pg.Node, target Table, upsert bool) Cond {
	switch {
	case n.GetAExpr() != nil:
		e := n.GetAExpr()
		op := opName(e.Name)
		switch e.Kind {
		case pg.A_Expr_Kind_AEXPR_OP:
			if col, ok := targetColumn(e.Lexpr, target); ok {
				return Cond{Column: col, Op: compareOp(op), Value: valueKind(e.Rexpr, target, upsert), Arg: argOf(e.Rexpr, upsert)}
			}
			if col, ok := targetColumn(e.Rexpr, target); ok {
				return Cond{Column: col, Op: flip(compareOp(op)), Value: valueKind(e.Lexpr, target, upsert), Arg: argOf(e.Lexpr, upsert)}
			}
		case pg.A_Expr_Kind_AEXPR_IN, pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
			if col, ok := targetColumn(e.Lexpr, target); ok {
				o := OpOther
				switch {
				case op == "=" && e.Kind != pg.A_Expr_Kind_AEXPR_OP_ALL:
					o = OpIn // IN (...), = ANY (...)
				case (op == "<>" || op == "!=") && e.Kind != pg.A_Expr_Kind_AEXPR_OP_ANY:
					o = OpNotIn // NOT IN (...), <> ALL (...)
				}
				return Cond{Column: col, Op: o, Value: valueKind(e.Rexpr, target, upsert)}
			}
		case pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
			o := OpDistinct
			if e.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT {
				o = OpEq // a null-safe equality
			}
			if col, ok := targetColumn(e.Lexpr, target); ok {
				return Cond{Column: col, Op: o, Value: valueKind(e.Rexpr, target, upsert), Arg: argOf(e.Rexpr, upsert)}
			}
			if col, ok := targetColumn(e.Rexpr, target); ok {
				return Cond{Column: col, Op: o, Value: valueKind(e.Lexpr, target, upsert), Arg: argOf(e.Lexpr, upsert)}
			}
		case pg.A_Expr_Kind_AEXPR_BETWEEN:
			if col, ok := targetColumn(e.Lexpr, target); ok {
				return Cond{Column: col, Op: OpLe, Value: valueKind(e.Rexpr, target, upsert)}
			}
		case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE, pg.A_Expr_Kind_AEXPR_SIMILAR:
			if col, ok := targetColumn(e.Lexpr, target); ok {
				return Cond{Column: col, Op: OpLike, Value: valueKind(e.Rexpr, target, upsert)}
			}
		}
		return Cond{Op: OpOther, InSubquery: hasSubLink(n)}
	case n.GetNullTest() != nil:
		t := n.GetNullTest()
		if col, ok := targetColumn(t.Arg, target); ok {
			op := OpIsNull
			if t.Nulltesttype == pg.NullTestType_IS_NOT_NULL {
				op = OpIsNotNull
			}
			return Cond{Column: col, Op: op, Value: ValueCaller}
		}
	case n.GetSubLink() != nil:
		sl := n.GetSubLink()
		if sl.SubLinkType == pg.SubLinkType_ANY_SUBLINK {
			if col, ok := targetColumn(sl.Testexpr, target); ok {
				return Cond{Column: col, Op: OpIn, Value: ValueSubquery}
			}
		}
		return Cond{Op: OpOther, InSubquery: true}
	}
	return Cond{Op: OpOther, InSubquery: hasSubLink(n)}
}

// negatedOp is the operator of a comparison under NOT.
var negatedOp = map[Op]Op{
	OpEq: OpNe, OpNe: OpEq, OpIn: OpNotIn, OpNotIn: OpIn, OpIsNull: OpIsNotNull, OpIsNotNull: OpIsNull,
	OpLt: OpGe, OpGe: OpLt, OpGt: OpLe, OpLe: OpGt,
}

func hasSubLink(n *pg.Node) bool {
	found := false
	walkMessages(n.ProtoReflect(), func(m protoreflect.Message) {
		if _, ok := m.Interface().(*pg.SubLink); ok {
			found = true
		}
	})
	return found
}

func opName(name []*pg.Node) string {
	if len(name) == 0 {
		return ""
	}
	return name[len(name)-1].GetString_().GetSval()
}

func compareOp(op string) Op {
	switch op {
	case "=":
		return OpEq
	case "<>", "!=":
		return OpNe
	case "<":
		return OpLt
	case "<=":
		return OpLe
	case ">":
		return OpGt
	case ">=":
		return OpGe
	}
	return OpOther
}

func flip(op Op) Op {
	switch op {
	case OpLt:
		return OpGt
	case OpLe:
		return OpGe
	case OpGt:
		return OpLt
	case OpGe:
		return OpLe
	}
	return op
}

// columnRef returns the lower-cased name parts of a column reference,
// looking through casts.
func columnRef(n *pg.Node) []string {
	for n.GetTypeCast() != nil {
		n = n.GetTypeCast().Arg
	}
	cr := n.GetColumnRef()
	if cr == nil {
		return nil
	}
	parts := make([]string, 0, len(cr.Fields))
	for _, f := range cr.Fields {
		s := f.GetString_()
		if s == nil {
			return nil // A_Star
		}
		parts = append(parts, strings.ToLower(s.Sval))
	}
	return parts
}

// targetColumn reports whether n is a column of the target table: an
// unqualified name, or one qualified by the table's name or alias.
func targetColumn(n *pg.Node, target Table) (string, bool) {
	parts := columnRef(n)
	switch len(parts) {
	case 1:
		if containsHole(parts[0]) {
			return "", false
		}
		return parts[0], true
	case 2, 3:
		rel := parts[len(parts)-2]
		if rel != "" && (rel == target.Name || rel == target.Alias) {
			return parts[len(parts)-1], true
		}
	}
	return "", false
}

var nowFuncs = map[string]bool{
	"now": true, "statement_timestamp": true, "clock_timestamp": true,
	"transaction_timestamp": true, "timeofday": true,
}

// argOf names a value that is one placeholder ("$2"), a constant ("'done'",
// "3", "true") or, in an upsert, the proposed row's column ("excluded.c");
// "" for anything else.
func argOf(n *pg.Node, upsert bool) string {
	for n != nil && n.GetTypeCast() != nil {
		n = n.GetTypeCast().Arg
	}
	switch {
	case n == nil:
	case n.GetParamRef() != nil:
		return "$" + strconv.Itoa(int(n.GetParamRef().Number))
	case n.GetAConst() != nil:
		switch c := n.GetAConst(); {
		case c.GetSval() != nil:
			return "'" + c.GetSval().Sval + "'"
		case c.GetIval() != nil:
			return strconv.Itoa(int(c.GetIval().Ival))
		case c.GetFval() != nil:
			return c.GetFval().Fval
		case c.GetBoolval() != nil:
			return strconv.FormatBool(c.GetBoolval().Boolval)
		}
	case upsert && n.GetColumnRef() != nil:
		if parts := columnRef(n); len(parts) == 2 && parts[0] == "excluded" {
			return "excluded." + parts[1]
		}
	}
	return ""
}

// valueKind classifies the other side of a comparison.
func valueKind(n *pg.Node, target Table, upsert bool) ValueKind {
	if n == nil {
		return ValueOther
	}
	for n.GetTypeCast() != nil {
		n = n.GetTypeCast().Arg
	}
	switch {
	case n.GetParamRef() != nil, n.GetAConst() != nil:
		return ValueCaller
	case n.GetList() != nil:
		k := ValueCaller
		for _, item := range n.GetList().Items {
			if v := valueKind(item, target, upsert); v != ValueCaller {
				k = v
			}
		}
		return k
	case n.GetColumnRef() != nil:
		parts := columnRef(n)
		if len(parts) == 1 && containsHole(parts[0]) {
			return ValueCaller
		}
		if upsert && len(parts) == 2 && parts[0] == "excluded" {
			return ValueCaller
		}
		return ValueColumn
	case n.GetSqlvalueFunction() != nil:
		return ValueNow
	case n.GetFuncCall() != nil:
		fc := n.GetFuncCall()
		if isSqlcParam(fc) {
			return ValueCaller
		}
		if nowFuncs[strings.ToLower(opName(fc.Funcname))] {
			return ValueNow
		}
	case n.GetAExpr() != nil:
		l := valueKind(n.GetAExpr().Lexpr, target, upsert)
		r := valueKind(n.GetAExpr().Rexpr, target, upsert)
		if n.GetAExpr().Lexpr == nil {
			l = r
		}
		switch {
		case l == ValueColumn || r == ValueColumn:
			return ValueColumn
		case l == ValueNow || r == ValueNow:
			return ValueNow
		case l == ValueCaller && r == ValueCaller:
			return ValueCaller
		}
	case n.GetSubLink() != nil:
		return ValueSubquery
	}
	return ValueOther
}

// assigns models SET targets.
func assigns(targets []*pg.Node, table Table, upsert bool) []Assign {
	out := make([]Assign, 0, len(targets))
	for _, t := range targets {
		rt := t.GetResTarget()
		if rt == nil {
			continue
		}
		a := Assign{Column: strings.ToLower(rt.Name)}
		val := rt.Val
		if val.GetMultiAssignRef() != nil {
			val = nil
		}
		a.Arg = argOf(val, upsert)
		if upsert && val.GetColumnRef() != nil {
			parts := columnRef(val)
			a.Copied = len(parts) == 2 && parts[0] == "excluded" && parts[1] == a.Column
		}
		if e := val.GetAExpr(); e != nil && e.Kind == pg.A_Expr_Kind_AEXPR_OP {
			if op := opName(e.Name); op == "+" || op == "-" {
				l, lok := targetColumn(e.Lexpr, table)
				r, rok := targetColumn(e.Rexpr, table)
				a.Step = lok && l == a.Column || op == "+" && rok && r == a.Column
			}
		}
		if val != nil {
			walkMessages(val.ProtoReflect(), func(m protoreflect.Message) {
				switch x := m.Interface().(type) {
				case *pg.CaseExpr:
					// CASE state WHEN 'x' THEN ...: the value tested.
					if x.Arg == nil {
						break
					}
					if col, ok := targetColumn(x.Arg, table); ok {
						a.Guards = append(a.Guards, col)
					}
				case *pg.CaseWhen:
					walkMessages(x.Expr.ProtoReflect(), func(m protoreflect.Message) {
						if cr, ok := m.Interface().(*pg.ColumnRef); ok {
							if col, ok := targetColumn(&pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: cr}}, table); ok {
								a.Guards = append(a.Guards, col)
							}
						}
					})
				case *pg.ColumnRef:
					if col, ok := targetColumn(&pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: x}}, table); ok && col == a.Column {
						a.SelfRef = true
					}
				}
			})
		}
		out = append(out, a)
	}
	return out
}

// isSqlcParam reports sqlc's named parameters, sqlc.arg(name),
// sqlc.narg(name) and sqlc.slice(name): placeholders in a query file.
func isSqlcParam(fc *pg.FuncCall) bool {
	if len(fc.Funcname) != 2 || !strings.EqualFold(fc.Funcname[0].GetString_().GetSval(), "sqlc") {
		return false
	}
	switch strings.ToLower(opName(fc.Funcname)) {
	case "arg", "narg", "slice":
		return true
	}
	return false
}

// guardRereads reports whether a conjunct of a WHERE clause is a guard
// that reads table t again in a subquery (`AND NOT EXISTS (SELECT 1 FROM t
// ...)`, `AND (SELECT count(*) FROM t ...) > 1`); a subquery that picks
// the rows to write (`id IN (SELECT id FROM t ... LIMIT 100)`, `(a, b) IN
// (SELECT ...)`, `id = (SELECT ...)`) is no guard.
func guardRereads(clause *pg.Node, t Table) bool {
	var conj []*pg.Node
	var flatten func(n *pg.Node)
	flatten = func(n *pg.Node) {
		if be := n.GetBoolExpr(); be != nil && be.Boolop == pg.BoolExprType_AND_EXPR {
			for _, a := range be.Args {
				flatten(a)
			}
			return
		}
		conj = append(conj, n)
	}
	flatten(clause)
	for _, n := range conj {
		if be := n.GetBoolExpr(); be != nil && be.Boolop == pg.BoolExprType_NOT_EXPR && len(be.Args) == 1 {
			if sl := be.Args[0].GetSubLink(); sl != nil && sl.SubLinkType == pg.SubLinkType_ANY_SUBLINK {
				if _, ok := targetColumn(sl.Testexpr, t); ok {
					continue // id NOT IN (SELECT id ... LIMIT n): the rows it keeps, as IN picks them
				}
			}
		}
		if sl := n.GetSubLink(); sl != nil && sl.SubLinkType == pg.SubLinkType_ANY_SUBLINK {
			continue // c IN (SELECT ...), (a, b) IN (SELECT ...)
		}
		if e := n.GetAExpr(); e != nil && e.Kind == pg.A_Expr_Kind_AEXPR_OP && opName(e.Name) == "=" {
			if _, ok := targetColumn(e.Lexpr, t); ok && e.Rexpr.GetSubLink() != nil {
				continue // c = (SELECT ...)
			}
		}
		if rereads(n, t) {
			return true
		}
	}
	return false
}

// rereads reports whether a WHERE clause reads table t in a subquery:
// any relation it names is one.
func rereads(clause *pg.Node, t Table) bool {
	found := false
	walkMessages(clause.ProtoReflect(), func(m protoreflect.Message) {
		if rv, ok := m.Interface().(*pg.RangeVar); ok && schemaHole(strings.ToLower(rv.Schemaname), strings.ToLower(rv.Relname)) == t.Name {
			found = true
		}
	})
	return found
}

// markDeleted marks the locks whose rows a DELETE of the same statement
// removes (a CTE that locks rows for a DELETE ... USING it).
func markDeleted(locks []*Lock, root *pg.Node) {
	walkMessages(root.ProtoReflect(), func(m protoreflect.Message) {
		d, ok := m.Interface().(*pg.DeleteStmt)
		if !ok || d.Relation == nil {
			return
		}
		name := schemaHole(strings.ToLower(d.Relation.Schemaname), strings.ToLower(d.Relation.Relname))
		for _, l := range locks {
			if l.Select != nil && len(l.Select.Tables) == 1 && l.Select.Tables[0].Name == name {
				l.Deleted = true
			}
		}
	})
}

// guards returns the subqueries over one table among a WHERE clause's
// top-level conjuncts: EXISTS (SELECT ... FROM t WHERE ...), c IN (SELECT
// ... FROM t WHERE ...), each possibly negated, and (SELECT count(*) FROM
// t ...) compared with a value.
func (b *builder) guards(clause *pg.Node, target Table) []Guard {
	var out []Guard
	var visit func(n *pg.Node, not bool)
	visit = func(n *pg.Node, not bool) {
		if be := n.GetBoolExpr(); be != nil {
			switch be.Boolop {
			case pg.BoolExprType_AND_EXPR:
				for _, a := range be.Args {
					visit(a, not)
				}
			case pg.BoolExprType_NOT_EXPR:
				if len(be.Args) == 1 {
					visit(be.Args[0], !not)
				}
			}
			return
		}
		if e := n.GetAExpr(); e != nil {
			// (SELECT count(*) FROM members WHERE ...) > 1
			for _, side := range []*pg.Node{e.Lexpr, e.Rexpr} {
				if side != nil && side.GetSubLink() != nil && side.GetSubLink().SubLinkType == pg.SubLinkType_EXPR_SUBLINK {
					visit(side, not)
				}
			}
			return
		}
		sl := n.GetSubLink()
		if sl == nil || sl.SubLinkType != pg.SubLinkType_EXISTS_SUBLINK && sl.SubLinkType != pg.SubLinkType_ANY_SUBLINK && sl.SubLinkType != pg.SubLinkType_EXPR_SUBLINK {
			return
		}
		sel := sl.Subselect.GetSelectStmt()
		if sel == nil || len(sel.FromClause) != 1 || sel.FromClause[0].GetRangeVar() == nil {
			return
		}
		t := b.table(sel.FromClause[0].GetRangeVar())
		if t.Unknown() {
			return
		}
		g := Guard{Table: t, Not: not}
		if sel.WhereClause != nil {
			g.Where = conds(sel.WhereClause, t, false)
		}
		out = append(out, g)
	}
	visit(clause, false)
	return out
}
