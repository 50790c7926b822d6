package fixer

import (
	"go/token"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/rules"
)

// Kind is how a literal spells its bytes.
type Kind uint8

const (
	Interpreted Kind = iota // "..." with escapes
	Raw                     // `...`, carriage returns dropped
	File                    // a .sql file: bytes as they are
)

// Literal is one stretch of source whose bytes make up SQL text[Start:End].
type Literal struct {
	Kind       Kind
	Start, End int
	// Pos is the source position Offs are relative to.
	Pos token.Pos
	// Offs[i] is the source offset, from Pos, of text byte Start+i; it has
	// one more element for End. Nil means byte for byte from Pos.
	Offs []int
}

// Source finds the literal holding a range of SQL text.
type Source interface {
	Literal(start, end int) (Literal, bool)
}

// SuggestedFix maps fix onto the source, or reports false when any of its
// edits does not lie inside one literal or cannot be spelled there.
func SuggestedFix(src Source, fix *rules.Fix) (analysis.SuggestedFix, bool) {
	if fix == nil || len(fix.Edits) == 0 {
		return analysis.SuggestedFix{}, false
	}
	sf := analysis.SuggestedFix{Message: fix.Message}
	for _, e := range fix.Edits {
		lit, ok := src.Literal(e.Span.Start, e.Span.End)
		if !ok || e.Span.Start < lit.Start || e.Span.End > lit.End || e.Span.Start > e.Span.End {
			return analysis.SuggestedFix{}, false
		}
		newText, ok := spell(lit.Kind, e.New)
		if !ok {
			return analysis.SuggestedFix{}, false
		}
		sf.TextEdits = append(sf.TextEdits, analysis.TextEdit{
			Pos:     lit.Pos + token.Pos(lit.offset(e.Span.Start)),
			End:     lit.Pos + token.Pos(lit.offset(e.Span.End)),
			NewText: []byte(newText),
		})
	}
	return sf, true
}

func (l Literal) offset(textOff int) int {
	if l.Offs == nil {
		return textOff - l.Start
	}
	return l.Offs[textOff-l.Start]
}

// spell writes s as it must appear inside a literal of kind k.
func spell(k Kind, s string) (string, bool) {
	switch k {
	case Interpreted:
		q := strconv.Quote(s)
		return q[1 : len(q)-1], true
	case Raw:
		return s, !strings.ContainsAny(s, "`\r")
	}
	return s, true
}
