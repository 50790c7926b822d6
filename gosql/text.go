package gosql

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dsqllint/dsqllint/fixer"
)

// Text is a candidate SQL text and the map from its bytes back to source.
type Text struct {
	SQL    string
	Pieces []piece
	// Node is the Go expression the text comes from (nil for .sql files).
	Node ast.Expr
	// Scope is the enclosing function (*ast.FuncDecl or *ast.FuncLit), nil
	// at package level and in .sql files.
	Scope ast.Node
	// Known marks text that is certainly SQL: a query argument of a known
	// database method, or a .sql file. It is parsed even when the
	// prefilter would reject it.
	Known bool
	// Const is the named constant (or variable) the text initialises.
	Const types.Object
	// Ref marks a named constant's text seen again at a query call: it
	// tells what the function runs (its locks) but is reported only at the
	// declaration.
	Ref bool
	// Generated marks a query const sqlc generated from a query file that
	// is checked itself: read, not reported.
	Generated bool
	// Origins and consts are where a text assembled by data flow was
	// written: the ranges of the literals it is made of, and the named
	// constants it reads (the lock sites it runs).
	Origins [][2]token.Pos
	Consts  []types.Object
}

// piece maps SQL[start:end] to source. Literal pieces map byte by byte
// through offs (offs[i] is the source offset of SQL byte start+i relative
// to pos; nil means identity); opaque pieces (a named constant, a
// non-constant operand) map every byte to [pos, end).
type piece struct {
	start, end  int
	Pos, EndPos token.Pos
	offs        []int
	Opaque      bool
	kind        fixer.Kind
	// expr is the expression an opaque piece stands for, when it is one.
	expr ast.Expr
}

// Pos maps a byte offset of SQL to a source position. end selects the
// position just after the byte before off, for range ends.
func (t *Text) Pos(off int, end bool) token.Pos {
	if len(t.Pieces) == 0 {
		return token.NoPos
	}
	i := sort.Search(len(t.Pieces), func(i int) bool { return t.Pieces[i].end > off })
	if end && i > 0 && (i == len(t.Pieces) || t.Pieces[i].start == off) {
		i-- // a range ending at a piece boundary ends in the earlier piece
	}
	if i == len(t.Pieces) {
		i--
	}
	p := t.Pieces[i]
	if p.Opaque {
		if end {
			return p.EndPos
		}
		return p.Pos
	}
	rel := off - p.start
	if rel < 0 {
		rel = 0
	}
	if p.offs == nil {
		return p.Pos + token.Pos(min(rel, p.end-p.start))
	}
	if rel >= len(p.offs) {
		rel = len(p.offs) - 1
	}
	return p.Pos + token.Pos(p.offs[rel])
}

// Literal returns the one literal piece covering SQL[start:end], if any:
// the place an exact edit of that range can be made.
func (t *Text) Literal(start, end int) (fixer.Literal, bool) {
	for _, p := range t.Pieces {
		if start >= p.start && end <= p.end && !p.Opaque {
			return fixer.Literal{Kind: p.kind, Start: p.start, End: p.end, Pos: p.Pos, Offs: p.offs}, true
		}
	}
	return fixer.Literal{}, false
}

// textBuilder assembles a Text from consecutive pieces. A text of one
// piece, the usual kind, keeps that piece's string and copies nothing.
type textBuilder struct {
	one    string // the first piece's text
	sql    []byte // all pieces' text, once there are two
	pieces []piece
}

// add appends s and returns where it starts.
func (b *textBuilder) add(s string) int {
	switch len(b.pieces) {
	case 0:
		b.one = s
		return 0
	case 1:
		b.sql = append(make([]byte, 0, 2*(len(b.one)+len(s))), b.one...)
	}
	start := len(b.sql)
	b.sql = append(b.sql, s...)
	return start
}

// literal appends a Go string literal; it returns false when the literal's
// value cannot be mapped byte by byte.
func (b *textBuilder) literal(lit *ast.BasicLit) bool {
	val, offs, ok := decodeLiteral(lit.Value)
	if !ok {
		return false
	}
	start := b.add(val)
	kind := fixer.Interpreted
	if lit.Value[0] == '`' {
		kind = fixer.Raw
	}
	pos := lit.Pos()
	if offs == nil {
		pos++ // byte for byte after the opening quote
	}
	b.pieces = append(b.pieces, piece{start: start, end: start + len(val), Pos: pos, EndPos: lit.End(), offs: offs, kind: kind})
	return true
}

// opaque appends text that maps as a whole to the expression e.
func (b *textBuilder) opaque(s string, e ast.Node) {
	start := b.add(s)
	x, _ := e.(ast.Expr)
	b.pieces = append(b.pieces, piece{start: start, end: start + len(s), Pos: e.Pos(), EndPos: e.End(), Opaque: true, expr: x})
}

func (b *textBuilder) text() *Text {
	if len(b.pieces) <= 1 {
		return &Text{SQL: b.one, Pieces: b.pieces}
	}
	return &Text{SQL: string(b.sql), Pieces: b.pieces}
}

// decodeLiteral returns a Go string literal's value and, for each value
// byte (plus one for the end), its offset within the literal's source text.
// Raw strings drop carriage returns, as the compiler does. A literal
// without escapes or carriage returns, the usual kind, is its value byte for
// byte from offset 1: offs is then nil and nothing is allocated.
func decodeLiteral(src string) (string, []int, bool) {
	if len(src) < 2 {
		return "", nil, false
	}
	if q := src[0]; (q == '`' || q == '"') && src[len(src)-1] == q {
		special := byte('\\')
		if q == '`' {
			special = '\r'
		}
		if strings.IndexByte(src[1:len(src)-1], special) < 0 {
			return src[1 : len(src)-1], nil, true
		}
	}
	val := make([]byte, 0, len(src))
	offs := make([]int, 0, len(src)+1)
	if src[0] == '`' {
		for i := 1; i < len(src)-1; i++ {
			if src[i] == '\r' {
				continue
			}
			val = append(val, src[i])
			offs = append(offs, i)
		}
		offs = append(offs, len(src)-1)
		return string(val), offs, true
	}
	if src[0] != '"' {
		return "", nil, false
	}
	for i := 1; i < len(src)-1; {
		c := src[i]
		if c != '\\' {
			val = append(val, c)
			offs = append(offs, i)
			i++
			continue
		}
		// UnquoteChar decodes one escape; map every byte it yields to the
		// backslash that starts it.
		r, multibyte, tail, err := strconv.UnquoteChar(src[i:len(src)-1], '"')
		if err != nil {
			return "", nil, false
		}
		n := len(src[i:len(src)-1]) - len(tail)
		var enc []byte
		if multibyte {
			enc = utf8.AppendRune(nil, r)
		} else {
			enc = []byte{byte(r)}
		}
		for _, e := range enc {
			val = append(val, e)
			offs = append(offs, i)
		}
		i += n
	}
	offs = append(offs, len(src)-1)
	return string(val), offs, true
}
