// Package sqltext is a SQL text as found in Go source or a .sql file:
// its SQL, and the map from each of its bytes back to the literal, the
// expression or the file it came from, so that a finding lands on the
// offending clause and a fix edits the right bytes.
package sqltext

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text is a candidate SQL text and the map from its bytes back to source.
type Text struct {
	SQL    string
	Pieces []Piece
	// Node is the Go expression the text comes from (nil for .sql files).
	Node ast.Expr
	// Scope is the enclosing function (*ast.FuncDecl or *ast.FuncLit), nil
	// at package level and in .sql files.
	Scope ast.Node
	// Const is the named constant (or variable) the text initialises.
	Const types.Object
	// Known marks text that is certainly SQL: a query argument of a known
	// database method, or a .sql file. It is parsed even when the
	// prefilter would reject it. (The flags sit together: one word.)
	Known bool
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

// Piece maps SQL[start:end] to source. Literal pieces map byte by byte
// through offs (offs[i] is the source offset of SQL byte start+i relative
// to pos; nil means identity); opaque pieces (a named constant, a
// non-constant operand) map every byte to [pos, end).
type Piece struct {
	Start, End  int
	Pos, EndPos token.Pos
	offs        []int
	Opaque      bool
	Kind        Kind
	// Expr is the expression an opaque piece stands for, when it is one.
	Expr ast.Expr
}

// Pos maps a byte offset of SQL to a source position. end selects the
// position just after the byte before off, for range ends.
func (t *Text) Pos(off int, end bool) token.Pos {
	if len(t.Pieces) == 0 {
		return token.NoPos
	}
	i := sort.Search(len(t.Pieces), func(i int) bool { return t.Pieces[i].End > off })
	if end && i > 0 && (i == len(t.Pieces) || t.Pieces[i].Start == off) {
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
	rel := off - p.Start
	if rel < 0 {
		rel = 0
	}
	if p.offs == nil {
		return p.Pos + token.Pos(min(rel, p.End-p.Start))
	}
	if rel >= len(p.offs) {
		rel = len(p.offs) - 1
	}
	return p.Pos + token.Pos(p.offs[rel])
}

// Literal returns the one literal piece covering SQL[start:end], if any:
// the place an exact edit of that range can be made.
func (t *Text) Literal(start, end int) (Literal, bool) {
	for _, p := range t.Pieces {
		if start >= p.Start && end <= p.End && !p.Opaque {
			return Literal{Kind: p.Kind, Start: p.Start, End: p.End, Pos: p.Pos, Offs: p.offs}, true
		}
	}
	return Literal{}, false
}

// Builder assembles a Text from consecutive pieces. A text of one
// piece, the usual kind, keeps that piece's string and copies nothing.
type Builder struct {
	one    string // the first piece's text
	sql    []byte // all pieces' text, once there are two
	pieces []Piece
}

// add appends s and returns where it starts.
func (b *Builder) add(s string) int {
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

// Literal appends a Go string Literal; it returns false when the Literal's
// value cannot be mapped byte by byte.
func (b *Builder) Literal(lit *ast.BasicLit) bool {
	val, offs, ok := DecodeLiteral(lit.Value)
	if !ok {
		return false
	}
	start := b.add(val)
	kind := Interpreted
	if lit.Value[0] == '`' {
		kind = Raw
	}
	pos := lit.Pos()
	if offs == nil {
		pos++ // byte for byte after the opening quote
	}
	b.pieces = append(b.pieces, Piece{Start: start, End: start + len(val), Pos: pos, EndPos: lit.End(), offs: offs, Kind: kind})
	return true
}

// Opaque appends text that maps as a whole to the expression e.
func (b *Builder) Opaque(s string, e ast.Node) {
	start := b.add(s)
	x, _ := e.(ast.Expr)
	b.pieces = append(b.pieces, Piece{Start: start, End: start + len(s), Pos: e.Pos(), EndPos: e.End(), Opaque: true, Expr: x})
}

// String is the text assembled so far.
func (b *Builder) String() string {
	if len(b.pieces) <= 1 {
		return b.one
	}
	return string(b.sql)
}

func (b *Builder) Text() *Text {
	if len(b.pieces) <= 1 {
		return &Text{SQL: b.one, Pieces: b.pieces}
	}
	return &Text{SQL: string(b.sql), Pieces: b.pieces}
}

// DecodeLiteral returns a Go string literal's value and, for each value
// byte (plus one for the end), its offset within the literal's source text.
// Raw strings drop carriage returns, as the compiler does. A literal
// without escapes or carriage returns, the usual kind, is its value byte for
// byte from offset 1: offs is then nil and nothing is allocated.
func DecodeLiteral(src string) (string, []int, bool) {
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
