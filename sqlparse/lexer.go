package sqlparse

import "sync"

// TokenKind classifies a lexical token of SQL text.
type TokenKind uint8

const (
	TokSpace   TokenKind = iota
	TokComment           // -- line or /* block */ (nested) comment
	TokString            // '...', E'...', $tag$...$tag$, B'', X'', U&''
	TokQuoted            // "quoted identifier" or MySQL `backtick` identifier
	TokNumber
	TokIdent    // identifier or keyword
	TokParam    // $1
	TokQuestion // ? (placeholder or jsonb operator, decided by Normalize)
	TokNamed    // :name or @name
	TokVerb     // printf verb such as %s, %[1]v, %%
	TokOp       // operator characters
	TokPunct    // ( ) [ ] , ; . :: :
	TokTemplate // a Go text/template action {{ ... }} (template.go)
	TokBrace    // a {name} or ${name} placeholder a program replaces (strings.Replacer, os.Expand)
)

// Token is one lexical token; Start and End are byte offsets.
type Token struct {
	Start, End int
	Kind       TokenKind
	// Unterminated marks a string, quoted identifier or comment that runs
	// to the end of the input.
	Unterminated bool
}

// Text returns the token's text within src.
func (t Token) Text(src string) string { return src[t.Start:t.End] }

// Lex splits src into tokens. It never fails: bytes it does not recognise
// become one-byte operator tokens, unterminated strings and comments run to
// the end. It runs in time linear in len(src) and does not recurse.
func Lex(src string) []Token { return lexInto(nil, src) }

// lexInto is Lex appending to toks[:0], which it grows only when too small.
func lexInto(toks []Token, src string) []Token {
	// Counting first costs less than the garbage of growing the slice:
	// token density varies from one per byte to one per line.
	n := 0
	for i := 0; i < len(src); n++ {
		i = lexOne(src, i).End
	}
	if cap(toks) < n {
		toks = make([]Token, 0, n)
	}
	toks = toks[:0]
	for i := 0; i < len(src); {
		t := lexOne(src, i)
		toks = append(toks, t)
		i = t.End
	}
	return toks
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isIdentStart(c byte) bool {
	return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9') || c == '$'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isOpChar reports PostgreSQL operator characters, except '?' which is
// lexed on its own so that `id=?` yields a placeholder.
func isOpChar(c byte) bool {
	switch c {
	case '+', '-', '*', '/', '<', '>', '=', '~', '!', '@', '#', '%', '^', '&', '|':
		return true
	}
	return false
}

func lexOne(src string, i int) Token {
	c := src[i]
	n := len(src)
	switch {
	case isSpace(c):
		j := i + 1
		for j < n && isSpace(src[j]) {
			j++
		}
		return Token{Kind: TokSpace, Start: i, End: j}
	case c == '-' && i+1 < n && src[i+1] == '-':
		j := i + 2
		for j < n && src[j] != '\n' {
			j++
		}
		return Token{Kind: TokComment, Start: i, End: j}
	case c == '/' && i+1 < n && src[i+1] == '*':
		depth, j := 1, i+2
		for j < n && depth > 0 {
			switch {
			case src[j] == '*' && j+1 < n && src[j+1] == '/':
				depth--
				j += 2
			case src[j] == '/' && j+1 < n && src[j+1] == '*':
				depth++
				j += 2
			default:
				j++
			}
		}
		return Token{Kind: TokComment, Start: i, End: j, Unterminated: depth > 0}
	case c == '\'':
		return lexQuoted(src, i, i, '\'', false, TokString)
	case (c == 'E' || c == 'e') && i+1 < n && src[i+1] == '\'':
		return lexQuoted(src, i, i+1, '\'', true, TokString)
	case (c == 'B' || c == 'b' || c == 'X' || c == 'x' || c == 'N' || c == 'n') && i+1 < n && src[i+1] == '\'':
		return lexQuoted(src, i, i+1, '\'', false, TokString)
	case (c == 'U' || c == 'u') && i+2 < n && src[i+1] == '&' && src[i+2] == '\'':
		return lexQuoted(src, i, i+2, '\'', false, TokString)
	case c == '"':
		return lexQuoted(src, i, i, '"', false, TokQuoted)
	case c == '`':
		return lexQuoted(src, i, i, '`', false, TokQuoted)
	case c == '$':
		if j, ok := braceEnd(src, i+1); ok {
			return Token{Kind: TokBrace, Start: i, End: j}
		}
		if i+1 < n && isDigit(src[i+1]) {
			j := i + 1
			for j < n && isDigit(src[j]) {
				j++
			}
			return Token{Kind: TokParam, Start: i, End: j}
		}
		if t, ok := lexDollar(src, i); ok {
			return t
		}
		return Token{Kind: TokOp, Start: i, End: i + 1}
	case isDigit(c) || (c == '.' && i+1 < n && isDigit(src[i+1])):
		j := i
		for j < n && (isDigit(src[j]) || src[j] == '.' || src[j] == '_') {
			j++
		}
		if j < n && (src[j] == 'e' || src[j] == 'E') {
			k := j + 1
			if k < n && (src[k] == '+' || src[k] == '-') {
				k++
			}
			if k < n && isDigit(src[k]) {
				j = k
				for j < n && isDigit(src[j]) {
					j++
				}
			}
		}
		return Token{Kind: TokNumber, Start: i, End: j}
	case isIdentStart(c):
		j := i + 1
		for j < n && isIdentChar(src[j]) {
			j++
		}
		return Token{Kind: TokIdent, Start: i, End: j}
	case c == '?':
		if i+1 < n && (src[i+1] == '|' || src[i+1] == '&' || src[i+1] == '#' || src[i+1] == '-') {
			j := i + 1
			for j < n && (isOpChar(src[j]) || src[j] == '?') {
				j++
			}
			return Token{Kind: TokOp, Start: i, End: j}
		}
		return Token{Kind: TokQuestion, Start: i, End: i + 1}
	case c == ':':
		if i+1 < n && src[i+1] == ':' {
			return Token{Kind: TokPunct, Start: i, End: i + 2}
		}
		if i+1 < n && isIdentStart(src[i+1]) {
			return Token{Kind: TokNamed, Start: i, End: identEnd(src, i+1)}
		}
		return Token{Kind: TokPunct, Start: i, End: i + 1}
	case c == '@' && i+1 < n && isIdentStart(src[i+1]):
		return Token{Kind: TokNamed, Start: i, End: identEnd(src, i+1)}
	case c == '%':
		if j, ok := verbEnd(src, i); ok {
			return Token{Kind: TokVerb, Start: i, End: j}
		}
		return lexOp(src, i)
	case c == '{' && i+1 < n && src[i+1] == '{':
		if j, ok := templateEnd(src, i); ok {
			return Token{Kind: TokTemplate, Start: i, End: j}
		}
	case c == '{':
		if j, ok := braceEnd(src, i); ok {
			return Token{Kind: TokBrace, Start: i, End: j}
		}
	case c == '(' || c == ')' || c == '[' || c == ']' || c == ',' || c == ';' || c == '.':
		return Token{Kind: TokPunct, Start: i, End: i + 1}
	case isOpChar(c):
		return lexOp(src, i)
	}
	return Token{Kind: TokOp, Start: i, End: i + 1}
}

// identEnd returns the end of a bind-parameter name starting at i: letters,
// digits, '_' and '.', as sqlx accepts (so `:v+1` is `:v` then `+1`).
func identEnd(src string, i int) int {
	for i < len(src) && (isIdentStart(src[i]) || isDigit(src[i]) || (src[i] == '.' && i+1 < len(src) && isIdentStart(src[i+1]))) {
		i++
	}
	return i
}

func lexOp(src string, i int) Token {
	j := i
	for j < len(src) && isOpChar(src[j]) {
		// Stop before a comment start inside an operator run.
		if j > i && ((src[j] == '-' && j+1 < len(src) && src[j+1] == '-') || (src[j] == '/' && j+1 < len(src) && src[j+1] == '*')) {
			break
		}
		// A '%' that starts a printf verb ends the operator.
		if j > i && src[j] == '%' {
			if _, ok := verbEnd(src, j); ok {
				break
			}
		}
		j++
	}
	if j == i {
		j = i + 1
	}
	return Token{Kind: TokOp, Start: i, End: j}
}

// verbEnd recognises a fmt verb at src[i] == '%': %%, %s, %5d, %-10v,
// %[2]s, %.3f, %+q. Only letters fmt knows count, so `a % b` is modulo.
func verbEnd(src string, i int) (int, bool) {
	j := i + 1
	if j < len(src) && src[j] == '%' {
		return j + 1, true
	}
	for j < len(src) && (src[j] == '+' || src[j] == '-' || src[j] == '#' || src[j] == '0') {
		j++
	}
	if j < len(src) && src[j] == '[' {
		k := j + 1
		for k < len(src) && isDigit(src[k]) {
			k++
		}
		if k == j+1 || k >= len(src) || src[k] != ']' {
			return 0, false
		}
		j = k + 1
	}
	for j < len(src) && isDigit(src[j]) {
		j++
	}
	if j < len(src) && src[j] == '.' {
		j++
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	if j < len(src) {
		switch src[j] {
		case 's', 'v', 'd', 'q', 'x', 'X', 'f', 'g', 'e', 't', 'b', 'o', 'c', 'T', 'U', 'p':
			// A verb glued to identifier characters on its right (`%sfoo`)
			// is still a verb; its neighbours decide how it normalises.
			return j + 1, true
		}
	}
	return 0, false
}

func lexQuoted(src string, start, open int, q byte, backslash bool, kind TokenKind) Token {
	j := open + 1
	for j < len(src) {
		c := src[j]
		if backslash && c == '\\' {
			j += 2
			continue
		}
		if c == q {
			if j+1 < len(src) && src[j+1] == q {
				j += 2
				continue
			}
			return Token{Kind: kind, Start: start, End: j + 1}
		}
		j++
	}
	return Token{Kind: kind, Start: start, End: len(src), Unterminated: true}
}

// lexDollar lexes a dollar-quoted string $tag$...$tag$ starting at i.
func lexDollar(src string, i int) (Token, bool) {
	j := i + 1
	for j < len(src) && src[j] != '$' {
		if !isIdentStart(src[j]) && !(j > i+1 && isDigit(src[j])) {
			return Token{}, false
		}
		j++
	}
	if j >= len(src) {
		return Token{}, false
	}
	tag := src[i : j+1]
	body := j + 1
	for k := body; k+len(tag) <= len(src); k++ {
		if src[k] == '$' && src[k:k+len(tag)] == tag {
			return Token{Kind: TokString, Start: i, End: k + len(tag)}, true
		}
	}
	return Token{Kind: TokString, Start: i, End: len(src), Unterminated: true}, true
}

// tokenBuffers recycles the token slices of Parse: no statement model keeps
// a token, and lexing was most of the garbage a new text left behind.
var tokenBuffers = sync.Pool{New: func() any { return new([]Token) }}

// maxPooledTokens keeps the buffers of huge texts out of the pool.
const maxPooledTokens = 1 << 12

func getTokens() *[]Token { return tokenBuffers.Get().(*[]Token) }

func putTokens(b *[]Token, toks []Token) {
	if cap(toks) <= maxPooledTokens {
		*b = toks[:0]
		tokenBuffers.Put(b)
	}
}

// braceEnd returns the end of a {name} placeholder at src[i:] (a name of
// letters, digits, _ and ., as strings.Replacer and os.Expand templates
// write them; PostgreSQL has no braces outside strings).
func braceEnd(src string, i int) (int, bool) {
	if i >= len(src) || src[i] != '{' || i+1 >= len(src) || !isIdentStart(src[i+1]) {
		return 0, false
	}
	for j := i + 2; j < len(src) && j < i+66; j++ {
		switch c := src[j]; {
		case c == '}':
			return j + 1, true
		case isIdentStart(c) || isDigit(c) || c == '.' || c == '$':
		default:
			return 0, false
		}
	}
	return 0, false
}
