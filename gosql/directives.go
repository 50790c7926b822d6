package gosql

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"

	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
	"github.com/dsqllint/dsqllint/sqltext"
)

// directive is one dsqllint:ignore comment.
type directive struct {
	Pos    token.Pos
	line   int
	file   string
	Rules  []string
	reason string
	Bad    string // why the directive is malformed, if it is
	Used   bool
	// Stmt is, for a directive inside SQL, the index of the statement it
	// precedes or sits in; -1 for Go comments.
	Stmt int
}

const directiveName = "dsqllint:ignore"

// parseDirective parses the text after the comment marker.
func parseDirective(body string) (d *directive, ok bool) {
	body = strings.TrimSpace(body)
	rest, ok := strings.CutPrefix(body, directiveName)
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return nil, false
	}
	d = &directive{Stmt: -1}
	ids, reason, hasReason := strings.Cut(rest, "--")
	d.reason = strings.TrimSpace(reason)
	for _, id := range strings.FieldsFunc(ids, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		id = strings.ToUpper(id)
		if rules.ByID(id) == nil {
			d.Bad = fmt.Sprintf("names unknown rule %s", id)
		}
		d.Rules = append(d.Rules, id)
	}
	switch {
	case d.Bad != "":
	case len(d.Rules) == 0:
		d.Bad = "names no rule; write //dsqllint:ignore DSQL003 -- reason"
	case !hasReason || d.reason == "":
		d.Bad = "has no reason; write the reason after ` -- `"
	}
	return d, true
}

// goDirectives finds //dsqllint:ignore comments in a Go file.
func goDirectives(fset *token.FileSet, f *ast.File) []*directive {
	var out []*directive
	for _, cg := range f.Comments {
		for _, cm := range cg.List {
			body, ok := strings.CutPrefix(cm.Text, "//")
			if !ok {
				continue
			}
			// A further // starts a trailing comment, not part of the directive.
			body, _, _ = strings.Cut(body, "//")
			if d, ok := parseDirective(body); ok {
				p := fset.Position(cm.Pos())
				d.Pos, d.line, d.file = cm.Pos(), p.Line, p.Filename
				out = append(out, d)
			}
		}
	}
	return out
}

// sqlDirectives finds -- dsqllint:ignore comments inside SQL text and ties
// each to the statement it precedes or sits in.
func (c *Package) sqlDirectives(t *sqltext.Text, s *sqlparse.Script) []*directive {
	if !strings.Contains(t.SQL, directiveName) {
		return nil
	}
	var out []*directive
	for _, tok := range sqlparse.Lex(t.SQL) {
		if tok.Kind != sqlparse.TokComment || !strings.HasPrefix(tok.Text(t.SQL), "--") {
			continue
		}
		d, ok := parseDirective(tok.Text(t.SQL)[2:])
		if !ok {
			continue
		}
		d.Pos = t.Pos(tok.Start, false)
		d.Stmt = len(s.Stmts)
		for i, st := range s.Stmts {
			if st.Span.End > tok.Start {
				d.Stmt = i
				break
			}
		}
		out = append(out, d)
	}
	return out
}

// SuppressedAt reports whether a Go directive on the line of pos (or of
// anchor, the enclosing expression), or the line above, silences rule id.
func (c *Package) SuppressedAt(id string, pos token.Pos, anchor ast.Node) bool {
	fp := c.Pass.Fset.Position(pos)
	lines := []int{fp.Line}
	if anchor != nil {
		lines = append(lines, c.Pass.Fset.Position(anchor.Pos()).Line)
	}
	for _, d := range c.Directives {
		if d.file != fp.Filename || !d.Names(id) {
			continue
		}
		for _, l := range lines {
			if d.line == l || d.line == l-1 {
				d.Used = true
				return true
			}
		}
	}
	return false
}

// Names reports whether a well-formed directive Names rule id.
func (d *directive) Names(id string) bool {
	if d.Bad != "" {
		return false
	}
	for _, r := range d.Rules {
		if r == id {
			return true
		}
	}
	return false
}
