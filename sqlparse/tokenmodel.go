package sqlparse

import (
	"strconv"
	"strings"
)

// tokenModel models from its tokens alone a statement in which no rule can
// find anything the tokens do not show: a SELECT (or WITH ... SELECT) that
// locks no rows and creates no table, or an INSERT ... VALUES that is not an
// upsert. Reads and plain inserts are most of the SQL in persistence code,
// and pg_query's parse and the decode of its tree are four fifths of a new
// statement's cost.
//
// For text pg_query accepts, the model is exactly the one parseTree builds
// (TestTokenModelMatchesParse, FuzzTokenModel). Text it would reject but
// whose quotes and parentheses close is modelled as the statement its
// first words name rather than as unparsed; no rule reads that difference
// for a statement with these words.
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
		// SELECT, TABLE and the set operations: a source that is not a
		// VALUES list (DSQL109); ON: ON CONFLICT; WITH: a CTE inside; FOR:
		// a locking clause in a subquery.
		kind, blocked = KindInsert, []string{"select", "table", "union", "intersect", "except", "on", "with", "for"}
	default:
		return false
	}
	var into *Table
	if kind == KindInsert {
		p := &tokenCursor{text: text, toks: toks, i: first}
		p.advance()
		into = &Table{}
		if !p.word("into") || !p.table(into) {
			return false
		}
		if t, ok := p.peek(); ok && !(t.Kind == TokPunct && t.Text(text) == "(") && !p.isWord(t, "values") && !p.isWord(t, "default") {
			return false // an alias (INSERT INTO t AS x) or an unknown form: the parse tree tells
		}
	}
	depth := 0
	for _, t := range toks[first+1:] {
		if t.Unterminated {
			return false
		}
		if t.Kind == TokPunct {
			switch text[t.Start] {
			case '(':
				depth++
			case ')':
				if depth--; depth < 0 {
					return false
				}
			}
		}
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
	if depth != 0 {
		return false
	}
	f, ok := quietFacts(text, toks)
	if !ok {
		return false
	}
	st.Kind = kind
	if kind == KindSelect {
		st.Node, f.Class, f.Tag = "SelectStmt", ClassNone, "SELECT"
	} else {
		st.Node, f.Class, f.Tag = "InsertStmt", ClassDML, "INSERT"
		st.Into = into
	}
	st.Facts = f
	return true
}

// tokenWrite models from its tokens an UPDATE or DELETE in the shape most
// persistence code writes, and nothing else:
//
//	UPDATE t SET c = v [, ...] [WHERE cond [AND ...]]
//	DELETE FROM t [WHERE cond [AND ...]]
//
// where t is a plain or schema-qualified name, a value v is a parameter, a
// constant, a printf hole, NULL/TRUE/FALSE, now() or current_timestamp
// (optionally cast: $1::bigint), a SET value may also be c + v or c - v of
// its own column, and a cond is `c op v` (op one of = <> != < <= > >=) or
// `c IS [NOT] NULL`. Identifiers are unquoted ASCII, at most 63 bytes (the
// length PostgreSQL truncates to), and not among the keywords that could
// parse as anything but a name. Any other token, and the statement goes to
// pg_query. As with tokenModel, the result equals the parse tree's.
func tokenWrite(st *Statement, text string, toks []Token, first int) bool {
	p := &tokenCursor{text: text, toks: toks, i: first}
	w := &Write{}
	switch {
	case p.word("update"):
		w.Kind = KindUpdate
	case p.word("delete") && p.word("from"):
		w.Kind = KindDelete
	default:
		return false
	}
	if !p.table(&w.Table) {
		return false
	}
	if w.Kind == KindUpdate {
		if !p.word("set") {
			return false
		}
		for {
			col, ok := p.name()
			if !ok || !p.op("=") {
				return false
			}
			a := Assign{Column: col}
			if p.ident(col) { // c = c + v
				if !p.op("+") && !p.op("-") {
					return false
				}
				a.SelfRef, a.Step = true, true
			}
			arg, ok := p.arg()
			if !ok {
				return false
			}
			if _, ok := p.value(); !ok {
				return false
			}
			if !a.SelfRef {
				a.Arg = arg
			}
			w.Sets = append(w.Sets, a)
			if !p.punct(",") {
				break
			}
		}
	}
	if t, ok := p.peek(); ok && p.isWord(t, "where") {
		p.advance()
		w.HasWhere, w.WhereSpan = true, Span{t.Start, t.End}
		if w.Where, ok = p.conds(w.Table); !ok {
			return false
		}
	}
	if _, more := p.peek(); more {
		return false
	}
	f, ok := quietFacts(text, toks)
	if !ok {
		return false
	}
	f.Class = ClassDML
	st.Kind, st.Write, st.Facts = w.Kind, w, f
	if w.Kind == KindUpdate {
		st.Node, f.Tag = "UpdateStmt", "UPDATE"
	} else {
		st.Node, f.Tag = "DeleteStmt", "DELETE"
	}
	return true
}

// quietFacts returns a statement's token facts and whether they leave it to
// the token models: no watched call or clause, which only the parse tree
// can place in context.
func quietFacts(text string, toks []Token) (*Facts, bool) {
	f := tokenFacts(text, toks)
	return f, len(f.Calls) == 0 && len(f.Clauses) == 0 && !f.geometric
}

// tokenCursor steps through the significant tokens of a statement.
type tokenCursor struct {
	text string
	toks []Token
	i    int // the current token, or past the end
}

func (p *tokenCursor) peek() (Token, bool) {
	if p.i < 0 || p.i >= len(p.toks) {
		return Token{}, false
	}
	return p.toks[p.i], true
}

func (p *tokenCursor) advance() {
	if p.i = significant(p.toks, p.i+1, 1); p.i < 0 {
		p.i = len(p.toks)
	}
}

func (p *tokenCursor) isWord(t Token, w string) bool {
	return t.Kind == TokIdent && strings.EqualFold(t.Text(p.text), w)
}

// word consumes the keyword w.
func (p *tokenCursor) word(w string) bool {
	if t, ok := p.peek(); ok && p.isWord(t, w) {
		p.advance()
		return true
	}
	return false
}

// ident consumes the identifier w when the one after it is an operator:
// the column in `c = c + 1`.
func (p *tokenCursor) ident(w string) bool {
	t, ok := p.peek()
	if !ok || !p.isWord(t, w) {
		return false
	}
	if n := significant(p.toks, p.i+1, 1); n < 0 || p.toks[n].Kind != TokOp {
		return false
	}
	p.advance()
	return true
}

func (p *tokenCursor) op(o string) bool {
	if t, ok := p.peek(); ok && t.Kind == TokOp && t.Text(p.text) == o {
		p.advance()
		return true
	}
	return false
}

func (p *tokenCursor) punct(s string) bool {
	if t, ok := p.peek(); ok && t.Kind == TokPunct && t.Text(p.text) == s {
		p.advance()
		return true
	}
	return false
}

// plainName reports an identifier that PostgreSQL reads as a name and
// keeps as written, but lower-cased.
func plainName(w string) bool {
	if len(w) == 0 || len(w) > 63 || isReserved(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i] | 0x20
		if !(c >= 'a' && c <= 'z' || w[i] == '_' || i > 0 && (w[i] >= '0' && w[i] <= '9' || w[i] == '$')) {
			return false
		}
	}
	return true
}

// name consumes a column name and returns it lower-cased.
func (p *tokenCursor) name() (string, bool) {
	t, ok := p.peek()
	if !ok || t.Kind != TokIdent || !plainName(t.Text(p.text)) || containsHole(t.Text(p.text)) {
		return "", false
	}
	p.advance()
	return strings.ToLower(t.Text(p.text)), true
}

// table consumes `name` or `schema.name`.
func (p *tokenCursor) table(t *Table) bool {
	first, ok := p.peek()
	if !ok || first.Kind != TokIdent || !plainName(first.Text(p.text)) {
		return false
	}
	p.advance()
	rel := first
	if p.punct(".") {
		if rel, ok = p.peek(); !ok || rel.Kind != TokIdent || !plainName(rel.Text(p.text)) {
			return false
		}
		p.advance()
		t.Schema = strings.ToLower(first.Text(p.text))
	}
	// As the parse tree places it: from the start of the qualified name,
	// the length of the relation's own name.
	t.Name = strings.ToLower(rel.Text(p.text))
	t.Span = Span{first.Start, min(first.Start+len(t.Name), len(p.text))}
	t.Name = schemaHole(t.Schema, t.Name)
	return true
}

// value consumes a value and any casts after it.
func (p *tokenCursor) value() (ValueKind, bool) {
	t, ok := p.peek()
	if !ok {
		return 0, false
	}
	kind := ValueCaller
	switch w := t.Text(p.text); {
	case t.Kind == TokParam, t.Kind == TokNumber, t.Kind == TokString && !t.Unterminated:
	case t.Kind != TokIdent || len(w) > 63:
		return 0, false
	case containsHole(w), strings.EqualFold(w, "null"), strings.EqualFold(w, "true"), strings.EqualFold(w, "false"):
	case strings.EqualFold(w, "current_timestamp"):
		kind = ValueNow
	case strings.EqualFold(w, "now"):
		p.advance()
		if !p.punct("(") {
			return 0, false
		}
		if t, ok := p.peek(); !ok || t.Kind != TokPunct || t.Text(p.text) != ")" {
			return 0, false
		}
		kind = ValueNow
	default:
		return 0, false
	}
	p.advance()
	for p.punct("::") {
		// A type name: a plain name, or a keyword such as int or timestamp.
		if t, ok := p.peek(); !ok || t.Kind != TokIdent || !plainName(t.Text(p.text)) && !isReserved(t.Text(p.text)) {
			return 0, false
		}
		p.advance()
	}
	return kind, true
}

// column consumes a column of target: `c`, or `t.c` where t is the
// target's name or alias.
func (p *tokenCursor) column(target Table) (string, bool) {
	t, ok := p.peek()
	if !ok || t.Kind != TokIdent || !plainName(t.Text(p.text)) {
		return "", false
	}
	if n := significant(p.toks, p.i+1, 1); n >= 0 && p.toks[n].Kind == TokPunct && p.text[p.toks[n].Start] == '.' {
		rel := strings.ToLower(t.Text(p.text))
		if rel != target.Name && rel != target.Alias {
			return "", false
		}
		p.advance()
		p.advance()
	}
	return p.name()
}

// conds consumes conditions joined by AND.
func (p *tokenCursor) conds(target Table) ([]Cond, bool) {
	var out []Cond
	for {
		c, ok := p.cond(target)
		if !ok {
			return nil, false
		}
		out = append(out, c)
		if !p.word("and") {
			return out, true
		}
	}
}

// cond consumes `c op v` or `c IS [NOT] NULL` on a column of target.
func (p *tokenCursor) cond(target Table) (Cond, bool) {
	col, ok := p.column(target)
	if !ok {
		return Cond{}, false
	}
	if p.word("is") {
		op := OpIsNull
		if p.word("not") {
			op = OpIsNotNull
		}
		return Cond{Column: col, Op: op, Value: ValueCaller}, p.word("null")
	}
	t, ok := p.peek()
	if !ok || t.Kind != TokOp {
		return Cond{}, false
	}
	op := compareOp(t.Text(p.text))
	if op == OpOther {
		return Cond{}, false
	}
	p.advance()
	arg, ok := p.arg()
	if !ok {
		return Cond{}, false
	}
	v, ok := p.value()
	return Cond{Column: col, Op: op, Value: v, Arg: arg}, ok
}

// arg names the next token as Cond.Arg does: a placeholder ($2, and $02
// too), or a constant as the parse tree holds it ('it”s' is "'it's'", 007
// is "7", TRUE is "true"). ok is false for a constant whose value the tokens do
// not spell plainly (E'\n', $$x$$, 1_000): the parse tree decides.
func (p *tokenCursor) arg() (arg string, ok bool) {
	t, ok := p.peek()
	if !ok {
		return "", true
	}
	w := t.Text(p.text)
	switch t.Kind {
	case TokParam:
		// $02 is parameter 2, as the tree numbers it.
		if n, err := strconv.ParseInt(w[1:], 10, 32); err == nil {
			return "$" + strconv.Itoa(int(n)), true
		}
		return "", false
	case TokString:
		if len(w) < 2 || w[0] != '\'' || w[len(w)-1] != '\'' {
			return "", false
		}
		return "'" + strings.ReplaceAll(w[1:len(w)-1], "''", "'") + "'", true
	case TokNumber:
		if strings.Trim(w, "0123456789") == "" {
			if n, err := strconv.ParseInt(w, 10, 32); err == nil {
				return strconv.Itoa(int(n)), true
			}
			return w, true // beyond int4: the tree keeps the digits
		}
		if strings.Trim(w, "0123456789.eE+-") == "" && strings.IndexFunc(w, func(r rune) bool { return r >= '0' && r <= '9' }) == 0 {
			return w, true
		}
		return "", false
	case TokIdent:
		if strings.EqualFold(w, "true") || strings.EqualFold(w, "false") {
			return strings.ToLower(w), true
		}
	}
	return "", true
}

// tokenLockedSelect models from its tokens a SELECT that locks the rows of
// one table, the shape of the reads that guard a read-modify-write:
//
//	SELECT list FROM t [[AS] a] [WHERE cond [AND ...]]
//	    [ORDER BY c [ASC|DESC] [, ...]] [LIMIT v]
//	    FOR UPDATE|NO KEY UPDATE|SHARE|KEY SHARE [OF t [, ...]] [NOWAIT|SKIP LOCKED]
//
// where the list holds names, qualified names, `*` and aliases only (no
// parentheses, so no subquery or call), and conditions are those of
// tokenWrite on columns of t. As with tokenModel, the result equals the
// parse tree's.
func tokenLockedSelect(st *Statement, text string, toks []Token, first int) bool {
	p := &tokenCursor{text: text, toks: toks, i: first}
	if !p.word("select") {
		return false
	}
	// The select list: each item's column (the name after the last dot,
	// or a star), as the parse tree reads it. After a dot or AS,
	// PostgreSQL takes any keyword as a label: `i.from`, `a AS from`.
	items := 0
	label := "" // "." or "as" when the next word is a label
	var cols []string
	col, at := "", 0 // the item's column, and how far into the item
	expr := false    // the item is an expression (a*b), not a column
	for ; label != "" || !p.word("from"); items++ {
		t, ok := p.peek()
		if !ok {
			return false
		}
		w := t.Text(p.text)
		switch {
		case label != "":
			if !(t.Kind == TokIdent && plainName(w) || label == "." && t.Kind == TokOp && w == "*") {
				return false
			}
			if label == "." && !expr {
				col = strings.ToLower(w) // the part after the last dot
			}
			label = ""
		case t.Kind == TokIdent && strings.EqualFold(w, "as"):
			label = "as"
		case t.Kind == TokPunct && w == ".":
			label = "."
		case t.Kind == TokPunct && w == ",":
			if col != "" {
				cols = append(cols, col)
			}
			col, at, expr = "", -1, false
		case t.Kind == TokOp && w == "*" && at > 0:
			col, expr = "", true // a product: no column of its own
		case t.Kind == TokIdent && plainName(w), t.Kind == TokOp && w == "*":
			if at == 0 {
				col = strings.ToLower(w)
			}
		default:
			return false
		}
		at++
		p.advance()
	}
	if items == 0 {
		return false
	}
	if col != "" {
		cols = append(cols, col)
	}
	sel := &Select{HasFrom: true, Tables: make([]Table, 1), Columns: cols}
	table := &sel.Tables[0]
	if !p.table(table) {
		return false
	}
	as := p.word("as")
	if t, ok := p.peek(); ok && t.Kind == TokIdent && plainName(t.Text(p.text)) {
		table.Alias = strings.ToLower(t.Text(p.text))
		p.advance()
	} else if as {
		return false
	}
	if p.word("where") {
		var ok bool
		if sel.Where, ok = p.conds(*table); !ok {
			return false
		}
	}
	if p.word("order") {
		if !p.word("by") {
			return false
		}
		for {
			if _, ok := p.column(*table); !ok {
				return false
			}
			_ = p.word("asc") || p.word("desc")
			if !p.punct(",") {
				break
			}
		}
	}
	if p.word("limit") {
		if t, ok := p.peek(); !ok || t.Kind != TokParam && t.Kind != TokNumber {
			return false
		}
		p.advance()
	}
	l := &Lock{Select: sel}
	switch {
	case !p.word("for"):
		return false
	case p.word("update"):
		l.Strength = ForUpdate
	case p.word("share"):
		l.Strength = ForShare
	case p.word("no"):
		if !p.word("key") || !p.word("update") {
			return false
		}
		l.Strength = ForNoKeyUpdate
	case p.word("key"):
		if !p.word("share") {
			return false
		}
		l.Strength = ForKeyShare
	default:
		return false
	}
	if p.word("of") {
		for {
			var of Table
			if !p.table(&of) {
				return false
			}
			l.Of = append(l.Of, of.Name)
			if !p.punct(",") {
				break
			}
		}
	}
	switch {
	case p.word("nowait"):
		l.Wait = WaitNoWait
	case p.word("skip"):
		if !p.word("locked") {
			return false
		}
		l.Wait = WaitSkipLocked
	}
	if _, more := p.peek(); more {
		return false
	}
	spans := lockTokens(text, toks)
	if len(spans) != 1 || spans[0].Strength != l.Strength {
		return false
	}
	l.Span, l.WaitSpan, l.Words = spans[0].Span, spans[0].WaitSpan, spans[0].Words
	f, ok := quietFacts(text, toks)
	if !ok {
		return false
	}
	sel.Locks = []*Lock{l}
	f.Class, f.Tag = ClassNone, "SELECT"
	st.Kind, st.Node, st.Locks, st.Facts = KindSelect, "SelectStmt", sel.Locks, f
	return true
}
