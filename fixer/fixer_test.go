package fixer

import (
	"strings"
	"testing"

	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
	"github.com/dsqllint/dsqllint/sqltext"
)

type source []sqltext.Literal

func (s source) Literal(start, end int) (sqltext.Literal, bool) {
	for _, l := range s {
		if start >= l.Start && end <= l.End {
			return l, true
		}
	}
	return sqltext.Literal{}, false
}

func TestSuggestedFixSpelling(t *testing.T) {
	fix := &rules.Fix{Message: "m", Edits: []rules.Edit{{Span: sqlparse.Span{Start: 2, End: 4}, New: "a\"b\n"}}}
	sf, ok := SuggestedFix(source{{Kind: sqltext.Interpreted, Start: 0, End: 10, Pos: 100, Offs: []int{1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12}}}, fix)
	if !ok || len(sf.TextEdits) != 1 || string(sf.TextEdits[0].NewText) != `a\"b\n` || sf.TextEdits[0].Pos != 103 || sf.TextEdits[0].End != 106 {
		t.Errorf("interpreted: %+v %v", sf, ok)
	}
	if _, ok := SuggestedFix(source{{Kind: sqltext.Raw, Start: 0, End: 10, Pos: 100}}, &rules.Fix{Edits: []rules.Edit{{Span: sqlparse.Span{Start: 1, End: 2}, New: "`"}}}); ok {
		t.Error("a backquote cannot be spelled in a raw string")
	}
	if _, ok := SuggestedFix(source{{Start: 0, End: 5}, {Start: 5, End: 9}}, &rules.Fix{Edits: []rules.Edit{{Span: sqlparse.Span{Start: 3, End: 7}}}}); ok {
		t.Error("an edit spanning two literals must not be made")
	}
}

func TestApply(t *testing.T) {
	content := []byte("a\nb\nSELECT 1 FROM t FOR SHARE;\nc\nd\ne\nf\ng\nh\ni\nj\nk\nSELECT 2 FROM t FOR SHARE;\n")
	var edits []Edit
	for i := 0; ; {
		j := strings.Index(string(content[i:]), "SHARE")
		if j < 0 {
			break
		}
		edits = append(edits, Edit{i + j, i + j + 5, "UPDATE"})
		i += j + 5
	}
	got, err := Apply(content, append(edits, edits[0]))
	if err != nil || strings.Count(string(got), "FOR UPDATE") != 2 || strings.Contains(string(got), "SHARE") {
		t.Fatalf("Apply: %q %v", got, err)
	}
	if _, err := Apply(content, []Edit{{0, 3, ""}, {2, 4, ""}}); err == nil {
		t.Error("overlapping edits applied")
	}
}

func TestOverlap(t *testing.T) {
	a := []Edit{{10, 20, "x"}, {40, 40, "import"}}
	for _, c := range []struct {
		b    []Edit
		want bool
	}{
		{[]Edit{{20, 30, "y"}}, false},            // touching
		{[]Edit{{15, 25, "y"}}, true},             // overlapping
		{[]Edit{{10, 20, "x"}}, false},            // identical: applied once
		{[]Edit{{40, 40, "import"}}, false},       // the same insertion
		{[]Edit{{40, 40, "other"}}, true},         // two insertions at one place: no order
		{[]Edit{{0, 5, ""}, {12, 12, "z"}}, true}, // one of several
	} {
		if got := Overlap(a, c.b); got != c.want {
			t.Errorf("Overlap(%v, %v) = %v, want %v", a, c.b, got, c.want)
		}
	}
}
