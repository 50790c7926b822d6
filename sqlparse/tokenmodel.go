package sqlparse

import "strings"

// tokenModel models from its tokens alone a statement in which no rule can
// find anything the tokens do not show: a SELECT (or WITH ... SELECT) that
// locks no rows and creates no table, or an INSERT ... VALUES that is not an
// upsert. Reads and plain inserts are most of the SQL in persistence code,
// and pg_query's parse and the decode of its tree are four fifths of a new
// statement's cost.
//
// For text pg_query accepts, the model is exactly the one parseTree builds
// (TestTokenModelMatchesParse, FuzzTokenModel). Text it would reject is
// modelled as the statement its first word names rather than as unparsed;
// no rule reads that difference for a statement with these words.
func tokenModel(st *Statement, text string, toks []Token, first int) bool {
	if first < 0 || toks[first].Kind != TokIdent {
		return false
	}
	var kind Kind
	var blocked []string
	switch w := toks[first].Text(text); {
	case strings.EqualFold(w, "select"), strings.EqualFold(w, "with"):
		// FOR: a locking clause; INTO: SELECT INTO creates a table; the
		// rest: a data-modifying WITH.
		kind, blocked = KindSelect, []string{"for", "into", "insert", "update", "delete", "merge"}
	case strings.EqualFold(w, "insert"):
		// SELECT: INSERT ... SELECT (DSQL109); ON: ON CONFLICT; WITH: a
		// CTE inside; FOR: a locking clause in a subquery.
		kind, blocked = KindInsert, []string{"select", "on", "with", "for"}
	default:
		return false
	}
	for _, t := range toks[first+1:] {
		if t.Kind != TokIdent {
			continue
		}
		w := text[t.Start:t.End]
		for _, b := range blocked {
			if strings.EqualFold(w, b) {
				return false
			}
		}
	}
	f := tokenFacts(text, toks)
	if len(f.Calls) > 0 || len(f.Clauses) > 0 {
		return false
	}
	st.Kind = kind
	if kind == KindSelect {
		st.Node, f.Class, f.Tag = "SelectStmt", ClassNone, "SELECT"
	} else {
		st.Node, f.Class, f.Tag = "InsertStmt", ClassDML, "INSERT"
	}
	st.Facts = f
	return true
}
