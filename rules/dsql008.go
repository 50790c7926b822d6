package rules

import (
	"strconv"
	"strings"

	"github.com/dsqllint/dsqllint/catalog"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// LockScope is DSQL008.
var LockScope = register(&Rule{
	ID:       "DSQL008",
	Name:     "lock-scope",
	Severity: Warning,
	Summary:  "FOR UPDATE over several tables, or not pinned to rows by key equality",
	check: func(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
		if st.Fragment {
			return // the FROM and WHERE are written elsewhere
		}
		for _, l := range st.Locks {
			sel := l.Select
			if sel == nil || !locksRows(st, l) || (l.Strength != sqlparse.ForUpdate && l.Strength != sqlparse.ForKeyShare) {
				continue
			}
			what := l.Strength.String()
			var t *catalog.Table // the locked table, when the schema gives its primary key
			if !sel.Joins && len(sel.Tables) == 1 {
				if t = tableOf(ctx.Config, sel.Tables[0]); t != nil && t.PrimaryKey == nil {
					t = nil
				}
			}
			switch {
			case len(l.Of) > 1 || (sel.Joins && len(l.Of) == 0):
				report(l.Span, what+" over "+joined(sel)+" locks rows of more than one table: "+
					"Aurora DSQL documents that a locking clause applies to one table "+
					"(locking clause such as FOR UPDATE can be applied on a single table); "+
					"lock one table with "+what+" OF <table>, or lock its rows in a single-table SELECT", nil)
			case t != nil:
				if gap := primaryKeyGap(t, sel.Where); gap != "" {
					report(l.Span, what+" whose WHERE "+gap+": Aurora DSQL documents that a locking clause needs equality predicates on the key "+
						"(locking clause such as FOR UPDATE can be applied only on tables with equality predicates on the key); "+
						"lock rows one key at a time (WHERE "+eqList(t.PrimaryKey)+")", nil)
				}
			case !sel.Joins:
				if why := unpinned(sel); why != "" {
					report(l.Span, what+" whose WHERE "+why+": Aurora DSQL documents that a locking clause needs equality predicates on the key "+
						"(locking clause such as FOR UPDATE can be applied only on tables with equality predicates on the key); "+
						"lock rows one key at a time (WHERE id = $1)", nil)
				}
			}
		}
	},
})

func joined(sel *sqlparse.Select) string {
	var names []string
	for _, t := range sel.Tables {
		if !t.Unknown() {
			names = append(names, t.Name)
		}
	}
	if len(names) < 2 {
		return "a join"
	}
	return "a join of " + strings.Join(names, ", ")
}

// unpinned says why a locking SELECT's WHERE does not pin rows by key
// equality, or returns "" when it does or when the WHERE cannot be judged
// (a condition the model does not understand may be the key equality).
func unpinned(sel *sqlparse.Select) string {
	if len(sel.Where) == 0 {
		return "is missing"
	}
	var kinds []string
	for _, c := range sel.Where {
		switch {
		case c.InSubquery:
			return ""
		case c.Op == sqlparse.OpEq && c.Column != "" && c.Value != sqlparse.ValueColumn:
			return ""
		case c.Op == sqlparse.OpOr:
			kinds = append(kinds, "OR")
		case c.Op == sqlparse.OpIn:
			kinds = append(kinds, "IN")
		case c.Op == sqlparse.OpLike:
			kinds = append(kinds, "LIKE")
		case c.Column != "" && (c.Op == sqlparse.OpLt || c.Op == sqlparse.OpLe || c.Op == sqlparse.OpGt || c.Op == sqlparse.OpGe):
			kinds = append(kinds, "a range")
		case c.Column != "" && (c.Op == sqlparse.OpNe || c.Op == sqlparse.OpIsNull || c.Op == sqlparse.OpIsNotNull || c.Op == sqlparse.OpNotIn || c.Op == sqlparse.OpDistinct):
			kinds = append(kinds, "a non-equality test")
		default:
			return ""
		}
	}
	return "pins no row by key equality (only " + strings.Join(dedupe(kinds), ", ") + ")"
}

func dedupe(s []string) []string {
	var out []string
	for _, x := range s {
		if !strings.Contains(","+strings.Join(out, ",")+",", ","+x+",") {
			out = append(out, x)
		}
	}
	return out
}

// eqList renders a key as equalities: "id = $1", "a = $1 AND b = $2".
func eqList(cols []string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c + " = $" + strconv.Itoa(i+1)
	}
	return strings.Join(parts, " AND ")
}
