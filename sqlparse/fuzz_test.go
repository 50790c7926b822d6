package sqlparse

import (
	"slices"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE",
	"UPDATE t SET v = :v+1 WHERE id = :id AND x = ?",
	"SELECT * FROM t WHERE metadata ? 'k' AND id = @id FOR NO KEY\nUPDATE",
	"SELECT * FROM executions_%d WHERE id = %[2]v LOCK IN SHARE MODE",
	"INSERT INTO l (a) VALUES (?) ON DUPLICATE KEY UPDATE a = VALUES(a)",
	"CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql; SELECT 2",
	"SELECT 'unterminated", "/* nested /* comment */ */ SELECT 1", "SELECT $tag$ x $tag$",
	"BEGIN ISOLATION LEVEL SERIALIZABLE; SAVEPOINT a; ROLLBACK TO a",
	" WHERE shard_id = $1 FOR SHARE", "`quoted` ?| ?& @? ::int [1:2]",
	"CREATE INDEX i ON {{ .Schema }}.t_{{.P}} (a); {{- if .X -}} SELECT '{{ x }}' {{/* c */}}{{ end }}",
	"SELECT {{ \"}}\" }} {{ {{/* {{ */}} {{ `",
}

// FuzzNormalize checks the offset map: every mapped offset stays inside the
// source, is monotonic, and text outside replaced segments maps back to the
// same bytes.
func FuzzNormalize(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		n := Normalize(src)
		prev := 0
		for off := 0; off <= len(n.Text); off++ {
			s := n.Map.ToSource(off)
			if s < 0 || s > len(src) {
				t.Fatalf("offset %d maps to %d, outside [0,%d]", off, s, len(src))
			}
			if s < prev {
				t.Fatalf("offset %d maps to %d, before %d", off, s, prev)
			}
			prev = s
		}
		last := 0
		for _, sp := range n.Stmts { // statement splitting: in order, disjoint, inside
			if sp.Start < last || sp.End > len(n.Text) || sp.Start > sp.End {
				t.Fatalf("bad statement span %v after %d of %d", sp, last, len(n.Text))
			}
			last = sp.End
		}
		// Round trip: a source offset outside replacements maps to the
		// normalised byte holding the same character.
		for off := 0; off < len(src); off++ {
			no := n.Map.ToNorm(off)
			if no < 0 || no > len(n.Text) {
				t.Fatalf("source offset %d maps to %d, outside the text", off, no)
			}
			identity := n.Map.ToSource(no) == off && n.Map.ToNorm(off+1) == no+1 && n.Map.ToSource(no+1) == off+1
			if identity && no < len(n.Text) && src[off] != n.Text[no] && src[off] != '`' && n.Text[no] != ' ' { // backticks become quotes; psql meta-commands are blanked
				t.Fatalf("offset %d: %q maps back to %q", off, src[off], n.Text[no])
			}
		}
	})
}

// FuzzLex checks that tokens tile the input exactly, and that the text
// before a ';' lexes to the same tokens alone as within the whole (Parse
// reuses them for a text's first statement).
func FuzzLex(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		end := 0
		toks := Lex(src)
		for i, tok := range toks {
			if tok.Start != end || tok.End <= tok.Start || tok.End > len(src) {
				t.Fatalf("token %+v after %d in %q", tok, end, src)
			}
			end = tok.End
			if tok.Kind == TokPunct && src[tok.Start] == ';' {
				if alone := Lex(src[:tok.Start]); !slices.Equal(alone, toks[:i]) {
					t.Fatalf("%q lexes to %v alone but %v before the ';' of %q", src[:tok.Start], alone, toks[:i], src)
				}
			}
		}
		if end != len(src) {
			t.Fatalf("tokens end at %d of %d", end, len(src))
		}
	})
}

// spanIn returns a check that a span lies inside src.
func spanIn(t *testing.T, src string) func(Span) {
	return func(sp Span) {
		t.Helper()
		if sp.Start < 0 || sp.End > len(src) || sp.Start > sp.End {
			t.Fatalf("span %v outside %d bytes of %q", sp, len(src), src)
		}
	}
}

// FuzzParse checks that Parse never panics and that every span it reports
// lies inside the text.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s := Parse(src)
		in := spanIn(t, src)
		for _, st := range s.Stmts {
			in(st.Span)
			in(st.KeywordSpan)
			for _, l := range st.Locks {
				in(l.Span)
				for _, w := range l.Words {
					in(w)
				}
			}
			if st.Write != nil && st.Write.HasWhere {
				in(st.Write.WhereSpan)
			}
		}
		if !utf8.ValidString(src) && s.Skipped == "" {
			t.Fatalf("invalid UTF-8 parsed: %q", src)
		}
	})
}
