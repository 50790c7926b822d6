package sqlparse

import (
	"strings"
	"testing"
	"time"
)

// TestTemplateNormalize: an action that prints is a name, as a printf verb
// is; any other action is blanked to the same length; SQL strings and
// comments, and what is not a closed action, stay as they are.
func TestTemplateNormalize(t *testing.T) {
	h := HoleIdent
	blank := func(s string) string { return strings.Repeat(" ", len(s)) }
	cases := []struct{ in, want string }{
		{"SELECT * FROM {{ .Table }} WHERE id = $1", "SELECT * FROM " + h + " WHERE id = $1"},
		{"CREATE TABLE {{.Schema}}.jobs (id int)", "CREATE TABLE " + h + ".jobs (id int)"},
		{"CREATE TABLE {{.Prefix}}jobs (id int)", "CREATE TABLE " + h + "jobs (id int)"},
		{"CREATE INDEX i ON {{ index .Options \"Namespace\" }}_jobs (a)", "CREATE INDEX i ON " + h + "_jobs (a)"},
		{"SELECT * FROM jobs_{{ .Suffix }}", "SELECT * FROM jobs__" + h},
		{"SELECT * FROM {{ .A }}{{ .B }}", "SELECT * FROM " + h + "_" + h},
		{"SELECT {{ $x }}, {{ $.Col }}, {{ .X | printf \"%s\" }}, {{- .Y -}} FROM t", "SELECT " + h + ", " + h + ", " + h + ", " + h + " FROM t"},
		{"SELECT * FROM t WHERE a = $1 AND b = {{ .B }}", "SELECT * FROM t WHERE a = $1 AND b = " + h},
		// Actions that print nothing.
		{"{{ if .WithFoo }}ALTER TABLE x ADD COLUMN foo int;{{ end }}", blank("{{ if .WithFoo }}") + "ALTER TABLE x ADD COLUMN foo int;" + blank("{{ end }}")},
		{"{{- if .A -}}a{{ else if .B }}b{{- else -}}c{{ end }}", blank("{{- if .A -}}") + "a" + blank("{{ else if .B }}") + "b" + blank("{{- else -}}") + "c" + blank("{{ end }}")},
		{"{{ range .T }}{{ with .X }}{{ break }}{{ continue }}{{ end }}{{ end }}", blank("{{ range .T }}{{ with .X }}{{ break }}{{ continue }}{{ end }}{{ end }}")},
		{"{{ define \"q\" }}{{ block \"b\" . }}{{ end }}{{ template \"q\" . }}{{ end }}", blank("{{ define \"q\" }}{{ block \"b\" . }}{{ end }}{{ template \"q\" . }}{{ end }}")},
		{"{{ $x := .Foo }}{{ $x = 2 }}{{ $i, $v := 1 }}{{}}", blank("{{ $x := .Foo }}{{ $x = 2 }}{{ $i, $v := 1 }}{{}}")},
		{"{{/* a comment */}}SELECT 1", blank("{{/* a comment */}}") + "SELECT 1"},
		{"{{- /* a\ncomment */ -}}SELECT 1", blank("{{- /* a") + "\n" + blank("comment */ -}}") + "SELECT 1"},
		{"{{/* {{ .Old }} */}}SELECT 1", blank("{{/* {{ .Old }} */}}") + "SELECT 1"},
		// A Go string inside the action hides its braces.
		{"SELECT * FROM {{ index .M \"}}\" }}", "SELECT * FROM " + h},
		// SQL literals and comments are not templates.
		{"SELECT '{{ .X }}', \"{{.Y}}\", $$ {{ .Z }} $$ -- {{ .C }}", "SELECT '{{ .X }}', \"{{.Y}}\", $$ {{ .Z }} $$ -- {{ .C }}"},
		{"SELECT /* {{ .X }} */ '{1,2}'::int[], '{\"a\": {\"b\": 1}}'::jsonb", "SELECT /* {{ .X }} */ '{1,2}'::int[], '{\"a\": {\"b\": 1}}'::jsonb"},
		// Unbalanced braces are left alone.
		{"SELECT {{ .X FROM t", "SELECT {{ .X FROM t"},
		{"SELECT }} FROM t", "SELECT }} FROM t"},
		{"SELECT {{ {{ .X }} FROM t", "SELECT {{ " + h + " FROM t"},
		{"SELECT {{ \"a\n\" }} FROM t", "SELECT {{ \"a\n\" }} FROM t"},
		{"SELECT {{/* x */ FROM t }}", "SELECT {{/* x */ FROM t }}"},
		// {name} and ${name}: names a program puts in (strings.Replacer,
		// os.Expand); not in strings, not with spaces or digits first.
		{"SELECT {x} FROM t", "SELECT " + h + " FROM t"},
		{"UPDATE {t} SET a = 1 FROM l WHERE {t}.id = l.id", "UPDATE " + h + " SET a = 1 FROM l WHERE " + h + ".id = l.id"},
		{"SELECT * FROM ${schema}.jobs_{suffix}", "SELECT * FROM " + h + ".jobs__" + h},
		{"SELECT '{x}', { x }, {1} FROM t", "SELECT '{x}', { x }, {1} FROM t"},
	}
	for _, c := range cases {
		n := Normalize(c.in)
		if n.Text != c.want {
			t.Errorf("Normalize(%q)\n got %q\nwant %q", c.in, n.Text, c.want)
		}
	}
}

// TestTemplateStatements: control actions and comments between statements
// make no statement of their own.
func TestTemplateStatements(t *testing.T) {
	src := "{{/* header */}}\n{{ if .A }}\nCREATE TABLE a (id int);\n{{ end }}\n{{ define \"x\" }};\n"
	n := Normalize(src)
	if len(n.Stmts) != 1 || !strings.Contains(n.Text[n.Stmts[0].Start:n.Stmts[0].End], "CREATE TABLE a") {
		t.Errorf("statements %v of %q", n.Stmts, n.Text)
	}
}

// TestTemplateOffsets: every span of a templated script is a source
// offset, and the actions are recorded so that no fix edits them.
func TestTemplateOffsets(t *testing.T) {
	src := "CREATE TABLE IF NOT EXISTS {{ .Schema }}.sessions (id bigserial PRIMARY KEY, expires_at timestamptz);\n" +
		"CREATE INDEX sessions_expiry ON {{ index .Options \"Namespace\" }}_sessions (expires_at);\n" +
		"{{- if .WithFoo }}CREATE {{ if .U }}UNIQUE {{ end }}INDEX ASYNC foo ON {{.P}}x (foo);{{ end }}\n" +
		"{{/* a comment */}}\n" +
		"TRUNCATE {{ .Prefix }}jobs"
	s := Parse(src)
	if len(s.Stmts) != 4 {
		t.Fatalf("%d statements", len(s.Stmts))
	}
	for _, st := range s.Stmts {
		if st.Kind == KindUnparsed {
			t.Errorf("unparsed %q: %s", src[st.Span.Start:st.Span.End], st.ParseError)
		}
	}
	text := func(sp Span) string { return src[sp.Start:sp.End] }
	col := s.Stmts[0].Facts.Table.Columns[0]
	if text(col.Type.Span) != "bigserial" {
		t.Errorf("column type span %q", text(col.Type.Span))
	}
	if ix := s.Stmts[1].Facts.Index; ix == nil || ix.Async || text(ix.Words) != "CREATE INDEX" {
		t.Errorf("index: %+v", ix)
	}
	if ix := s.Stmts[2].Facts.Index; ix == nil || !ix.Async || !strings.HasPrefix(text(s.Stmts[2].KeywordSpan), "CREATE") {
		t.Errorf("async index: %+v at %q", ix, text(s.Stmts[2].KeywordSpan))
	}
	if tr := s.Stmts[3].Facts.Truncate; tr == nil || text(tr.Words) != "TRUNCATE" {
		t.Errorf("truncate: %+v", tr)
	}
	if len(s.Templates) != 9 {
		t.Fatalf("templates %v", s.Templates)
	}
	for _, a := range s.Templates {
		if got := text(a); !strings.HasPrefix(got, "{{") || !strings.HasSuffix(got, "}}") {
			t.Errorf("template span %q", got)
		}
	}
	a := s.Templates[0] // {{ .Schema }}
	for sp, want := range map[Span]bool{
		{a.Start, a.Start}:         false, // an insertion before it
		{a.End, a.End}:             false, // or after it
		{a.Start + 1, a.Start + 1}: true,
		{a.Start - 3, a.Start}:     false,
		{a.Start - 3, a.Start + 1}: true,
		{a.End - 1, a.End + 3}:     true,
		{a.Start - 1, a.End + 1}:   true,
	} {
		if got := s.EditsTemplate(sp); got != want {
			t.Errorf("EditsTemplate(%v) of %v = %v, want %v", sp, a, got, want)
		}
	}
}

// TestTemplateHostileInput: unclosed and nested braces cost time linear
// in the text, at the size limit too.
func TestTemplateHostileInput(t *testing.T) {
	const size = MaxBytes
	for _, unit := range []string{"{{", "{{ .x", "{{/*", "{{/* */ ", "{{ \"", "{{ `", "{{ '", "{{- /*{{", "{{ {{ }} ", "{{\"{{`"} {
		src := "SELECT " + strings.Repeat(unit, size/len(unit)-8)
		start := time.Now()
		Normalize(src)
		Lex(src)
		Parse(src)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%q repeated: %v", unit, d)
		}
	}
	// A single unclosed action before a long tail is scanned once.
	src := "SELECT {{ \"" + strings.Repeat("x {{ ", size/5-4)
	start := time.Now()
	Normalize(src)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("unclosed string: %v", d)
	}
}
