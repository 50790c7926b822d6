package sqlparse

import (
	"strconv"
	"strings"
)

// Style is the placeholder style a text uses, so that messages can suggest
// a predicate in the style the code already writes.
type Style uint8

const (
	StyleNone     Style = iota
	StyleDollar         // $1 (pgx, lib/pq)
	StyleQuestion       // ? (MySQL/SQLite drivers, sqlx.In)
	StyleColon          // :name (sqlx named queries)
	StyleAt             // @name (pgx named args, sqlc)
	StyleVerb           // %s, %d (fmt.Sprintf-built text)
)

// HoleIdent replaces printf verbs (and the non-constant operands of a
// concatenation, which extraction writes as %s) so the text parses. The
// model treats a column reference with this name as a value from the caller.
const HoleIdent = "dsqllint_hole"

// Normalized is SQL text rewritten to PostgreSQL syntax.
type Normalized struct {
	Text string
	Map  OffsetMap
	// Style is the first placeholder style seen; MaxParam the highest $n
	// after normalisation.
	Style    Style
	MaxParam int
	// Stmts are the statement ranges in Text, split at top-level ';'.
	Stmts []Span
	// MySQLLocks are source ranges of MySQL `LOCK IN SHARE MODE`, which
	// Text spells FOR SHARE so that the statement parses.
	MySQLLocks []Span
	// MaxDepth is the deepest parenthesis nesting seen.
	MaxDepth int
	// Templates are the source ranges of text/template actions.
	Templates []Span
	// toks are Text's tokens when Text is the source unchanged (no
	// placeholder or clause rewritten), else nil: Parse then need not lex
	// the first statement again.
	toks []Token
}

// Span is a half-open byte range.
type Span struct{ Start, End int }

// Normalize rewrites driver placeholders to $n, printf verbs and
// text/template actions that print to an identifier (other actions to
// blanks), backtick identifiers to double quotes, and the MySQL-only
// clauses the rules care about to their PostgreSQL spelling. Text inside
// string literals and comments is never touched.
//
// psql meta-commands and COPY data are blanked first (see skipPsql), and
// the semicolons of a BEGIN ATOMIC function body do not end the statement.
func Normalize(src string) *Normalized {
	n, _ := normalizeInto(nil, src)
	return n
}

// normalizeInto is Normalize lexing into buf, whose memory n.toks and the
// returned tokens then share.
func normalizeInto(buf []Token, src string) (n *Normalized, toks []Token) {
	src = skipPsql(src)
	toks = lexInto(buf, src)
	n = normalizeTokens(src, toks)
	if n.Text == src {
		n.toks = toks
	}
	return n, toks
}

func normalizeTokens(src string, toks []Token) *Normalized {
	n := &Normalized{}
	var b strings.Builder
	b.Grow(len(src) + 16)
	named := map[string]int{}
	for _, t := range toks {
		if t.Kind == TokParam {
			if v, err := strconv.Atoi(src[t.Start+1 : t.End]); err == nil && v > n.MaxParam && v < 1<<20 {
				n.MaxParam = v
			}
			if n.Style == StyleNone {
				n.Style = StyleDollar
			}
		}
	}
	next := func() string {
		n.MaxParam++
		return "$" + strconv.Itoa(n.MaxParam)
	}
	setStyle := func(s Style) {
		if n.Style == StyleNone {
			n.Style = s
		}
	}
	replace := func(t Token, with string) {
		n.Map.add(b.Len(), len(with), t.Start, t.End-t.Start)
		b.WriteString(with)
	}
	// replaceRange replaces the source bytes [start,end) and skips tokens in it.
	stmtStart := 0
	depth, brackets := 0, 0
	onDuplicate := false
	skipUntil := -1
	atomic := 0    // inside BEGIN ATOMIC ... END: CASE ... END nesting + 1
	words := false // the statement so far has more than space and comments
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Start < skipUntil {
			continue
		}
		prints := t.Kind == TokTemplate && templatePrints(t.Text(src))
		if t.Kind != TokSpace && t.Kind != TokComment && !(t.Kind == TokPunct && src[t.Start] == ';') && (t.Kind != TokTemplate || prints) {
			words = true
		}
		switch t.Kind {
		case TokPunct:
			switch src[t.Start] {
			case '(':
				depth++
				if depth > n.MaxDepth {
					n.MaxDepth = depth
				}
			case ')':
				if depth > 0 {
					depth--
				}
			case '[':
				brackets++
			case ']':
				if brackets > 0 {
					brackets--
				}
			case ';':
				b.WriteByte(';')
				if atomic > 0 {
					continue
				}
				n.addStmt(words, stmtStart, b.Len()-1)
				stmtStart = b.Len()
				depth, brackets, onDuplicate, words = 0, 0, false, false
				continue
			}
			b.WriteString(t.Text(src))
		case TokQuestion:
			if isJSONBQuestion(src, toks, i) {
				b.WriteByte('?')
				continue
			}
			setStyle(StyleQuestion)
			replace(t, next())
		case TokNamed:
			if brackets > 0 {
				b.WriteString(t.Text(src))
				continue
			}
			if src[t.Start] == ':' {
				setStyle(StyleColon)
			} else {
				setStyle(StyleAt)
			}
			name := strings.ToLower(src[t.Start+1 : t.End])
			p, ok := named[name]
			if !ok {
				n.MaxParam++
				p = n.MaxParam
				named[name] = p
			}
			replace(t, "$"+strconv.Itoa(p))
		case TokVerb:
			if src[t.Start+1] == '%' {
				replace(t, "%")
				continue
			}
			setStyle(StyleVerb)
			replace(t, hole(src, toks, i))
		case TokBrace:
			replace(t, hole(src, toks, i)) // a name the program puts in
		case TokTemplate:
			// An action that prints stands for a name, as a printf verb
			// does; the others print nothing and become blanks.
			n.Templates = append(n.Templates, Span{t.Start, t.End})
			if prints {
				replace(t, hole(src, toks, i))
				continue
			}
			for _, c := range []byte(t.Text(src)) {
				if c != '\n' && c != '\r' {
					c = ' '
				}
				b.WriteByte(c)
			}
		case TokQuoted:
			if src[t.Start] == '`' {
				inner := t.Text(src)
				b.WriteByte('"')
				if len(inner) > 1 {
					b.WriteString(inner[1 : len(inner)-1])
					if !t.Unterminated {
						b.WriteByte('"')
					} else {
						b.WriteByte(inner[len(inner)-1])
					}
				}
				continue
			}
			b.WriteString(t.Text(src))
		case TokIdent:
			if end, ok := matchWords(src, toks, i, "lock", "in", "share", "mode"); ok {
				n.MySQLLocks = append(n.MySQLLocks, Span{t.Start, end})
				n.Map.add(b.Len(), len("FOR SHARE"), t.Start, end-t.Start)
				b.WriteString("FOR SHARE")
				skipUntil = end
				continue
			}
			if end, ok := matchWords(src, toks, i, "on", "duplicate", "key", "update"); ok {
				const with = "ON CONFLICT DO UPDATE SET"
				n.Map.add(b.Len(), len(with), t.Start, end-t.Start)
				b.WriteString(with)
				skipUntil = end
				onDuplicate = true
				continue
			}
			atomic = atomicDepth(src, toks, i, atomic)
			if onDuplicate && strings.EqualFold(t.Text(src), "values") {
				// MySQL VALUES(col) in the update list is PostgreSQL's excluded.col.
				if col, end, ok := valuesCall(src, toks, i); ok {
					with := "excluded." + col
					n.Map.add(b.Len(), len(with), t.Start, end-t.Start)
					b.WriteString(with)
					skipUntil = end
					continue
				}
			}
			b.WriteString(t.Text(src))
		default:
			b.WriteString(t.Text(src))
		}
	}
	n.Text = b.String()
	n.addStmt(words, stmtStart, len(n.Text))
	return n
}

// hole returns the identifier a run-time piece at toks[i] is written as:
// glued to a name on its left (executions_%d, jobs_{{ .Suffix }}) it
// continues the name; after a placeholder ($1%s) it does not.
func hole(src string, toks []Token, i int) string {
	if i > 0 && toks[i-1].End == toks[i].Start {
		switch p := toks[i-1]; p.Kind {
		case TokIdent, TokVerb, TokBrace:
			return "_" + HoleIdent
		case TokTemplate:
			if templatePrints(p.Text(src)) {
				return "_" + HoleIdent
			}
		}
	}
	return HoleIdent
}

// addStmt records [start,end) of text as a statement unless it holds only
// space and comments.
func (n *Normalized) addStmt(words bool, start, end int) {
	if words {
		n.Stmts = append(n.Stmts, Span{start, end})
	}
}

// significant returns the index of the next token at or after i (step +1)
// or before i (step -1) that is not space or comment, or -1.
func significant(toks []Token, i, step int) int {
	for ; i >= 0 && i < len(toks); i += step {
		if k := toks[i].Kind; k != TokSpace && k != TokComment {
			return i
		}
	}
	return -1
}

// matchWords reports whether the significant tokens from i spell words
// (case-insensitive identifiers), returning the end of the last one.
func matchWords(src string, toks []Token, i int, words ...string) (int, bool) {
	end := 0
	for _, w := range words {
		if i < 0 || toks[i].Kind != TokIdent || !strings.EqualFold(toks[i].Text(src), w) {
			return 0, false
		}
		end = toks[i].End
		i = significant(toks, i+1, 1)
	}
	return end, true
}

// valuesCall matches VALUES ( ident ) at i.
func valuesCall(src string, toks []Token, i int) (col string, end int, ok bool) {
	j := significant(toks, i+1, 1)
	if j < 0 || toks[j].Text(src) != "(" {
		return "", 0, false
	}
	k := significant(toks, j+1, 1)
	if k < 0 || (toks[k].Kind != TokIdent && toks[k].Kind != TokQuoted) {
		return "", 0, false
	}
	l := significant(toks, k+1, 1)
	if l < 0 || toks[l].Text(src) != ")" {
		return "", 0, false
	}
	col = toks[k].Text(src)
	if toks[k].Kind == TokQuoted && src[toks[k].Start] == '`' {
		col = `"` + col[1:len(col)-1] + `"`
	}
	return col, toks[l].End, true
}

// isJSONBQuestion decides whether the ? at toks[i] is the jsonb
// key-exists operator (`metadata ? 'k'`) rather than a placeholder: it sits
// between an operand and a string literal or parameter.
func isJSONBQuestion(src string, toks []Token, i int) bool {
	p := significant(toks, i-1, -1)
	nx := significant(toks, i+1, 1)
	if p < 0 || nx < 0 {
		return false
	}
	switch toks[nx].Kind {
	case TokString, TokParam:
	default:
		return false
	}
	switch pt := toks[p]; pt.Kind {
	case TokQuoted, TokNumber, TokString, TokParam:
		return true
	case TokIdent:
		return !isKeyword(pt.Text(src))
	case TokPunct:
		c := src[pt.Start]
		return c == ')' || c == ']'
	}
	return false
}

// keywords that may directly precede a value placeholder.
var valueKeywords = map[string]bool{
	"and": true, "or": true, "not": true, "in": true, "values": true, "set": true,
	"where": true, "then": true, "else": true, "when": true, "between": true,
	"like": true, "ilike": true, "is": true, "select": true, "returning": true,
	"by": true, "as": true, "on": true, "case": true, "limit": true, "offset": true,
	"any": true, "all": true, "some": true, "distinct": true, "from": true, "using": true,
	"having": true, "interval": true, "array": true, "fetch": true, "first": true, "next": true,
}

func isKeyword(s string) bool {
	if len(s) > 10 {
		return false
	}
	var buf [10]byte
	for i := 0; i < len(s); i++ {
		buf[i] = s[i] | 0x20
	}
	return valueKeywords[string(buf[:len(s)])]
}
