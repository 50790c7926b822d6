package fixer

import (
	"go/token"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqltext"
)

// Source finds the literal holding a range of SQL text.
type Source interface {
	Literal(start, end int) (sqltext.Literal, bool)
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
			Pos:     lit.Pos + token.Pos(lit.Offset(e.Span.Start)),
			End:     lit.Pos + token.Pos(lit.Offset(e.Span.End)),
			NewText: []byte(newText),
		})
	}
	return sf, true
}

// spell writes s as it must appear inside a literal of kind k.
func spell(k sqltext.Kind, s string) (string, bool) {
	switch k {
	case sqltext.Interpreted:
		q := strconv.Quote(s)
		return q[1 : len(q)-1], true
	case sqltext.Raw:
		return s, !strings.ContainsAny(s, "`\r")
	}
	return s, true
}
