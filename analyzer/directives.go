package analyzer

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// directive is one dsqllint:ignore comment.
type directive struct {
	pos    token.Pos
	line   int
	file   string
	rules  []string
	reason string
	bad    string // why the directive is malformed, if it is
	used   bool
	// stmt is, for a directive inside SQL, the index of the statement it
	// precedes or sits in; -1 for Go comments.
	stmt int
}

const directiveName = "dsqllint:ignore"

// parseDirective parses the text after the comment marker.
func parseDirective(body string) (d *directive, ok bool) {
	body = strings.TrimSpace(body)
	rest, ok := strings.CutPrefix(body, directiveName)
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return nil, false
	}
	d = &directive{stmt: -1}
	ids, reason, hasReason := strings.Cut(rest, "--")
	d.reason = strings.TrimSpace(reason)
	for _, id := range strings.FieldsFunc(ids, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		id = strings.ToUpper(id)
		if rules.ByID(id) == nil {
			d.bad = fmt.Sprintf("names unknown rule %s", id)
		}
		d.rules = append(d.rules, id)
	}
	switch {
	case d.bad != "":
	case len(d.rules) == 0:
		d.bad = "names no rule; write //dsqllint:ignore DSQL003 -- reason"
	case !hasReason || d.reason == "":
		d.bad = "has no reason; write the reason after ` -- `"
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
				d.pos, d.line, d.file = cm.Pos(), p.Line, p.Filename
				out = append(out, d)
			}
		}
	}
	return out
}

// sqlDirectives finds -- dsqllint:ignore comments inside SQL text and ties
// each to the statement it precedes or sits in.
func (c *checker) sqlDirectives(t *Text, s *sqlparse.Script) []*directive {
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
		d.pos = t.Pos(tok.Start, false)
		d.stmt = len(s.Stmts)
		for i, st := range s.Stmts {
			if st.Span.End > tok.Start {
				d.stmt = i
				break
			}
		}
		out = append(out, d)
	}
	return out
}

// suppressed reports whether a directive silences finding f at pos, marking
// the directive used.
func (c *checker) suppressed(p *parsedText, f rules.Finding, pos token.Pos) bool {
	for _, d := range p.dirs {
		if d.names(f.Rule.ID) && d.stmt < len(p.script.Stmts) && spanIn(f.Span, p.script.Stmts[d.stmt].Span) {
			d.used = true
			return true
		}
	}
	var anchor ast.Node
	if p.text.Node != nil {
		anchor = p.text.Node
	}
	return c.suppressedAt(f.Rule.ID, pos, anchor)
}

// suppressedAt reports whether a Go directive on the line of pos (or of
// anchor, the enclosing expression), or the line above, silences rule id.
func (c *checker) suppressedAt(id string, pos token.Pos, anchor ast.Node) bool {
	fp := c.pass.Fset.Position(pos)
	lines := []int{fp.Line}
	if anchor != nil {
		lines = append(lines, c.pass.Fset.Position(anchor.Pos()).Line)
	}
	for _, d := range c.directives {
		if d.file != fp.Filename || !d.names(id) {
			continue
		}
		for _, l := range lines {
			if d.line == l || d.line == l-1 {
				d.used = true
				return true
			}
		}
	}
	return false
}

// names reports whether a well-formed directive names rule id.
func (d *directive) names(id string) bool {
	if d.bad != "" {
		return false
	}
	for _, r := range d.rules {
		if r == id {
			return true
		}
	}
	return false
}

func spanIn(a, b sqlparse.Span) bool { return a.Start >= b.Start && a.Start <= b.End }

// reportDirectives reports malformed directives and those that silenced
// nothing, unless the rules they name are disabled.
func (c *checker) reportDirectives(parsed []*parsedText) {
	all := c.directives
	for _, p := range parsed {
		all = append(all, p.dirs...)
	}
	r := rules.ByID("DSQL000")
	for _, d := range all {
		var msg string
		switch {
		case d.bad != "":
			msg = "this dsqllint:ignore " + d.bad
		case !d.used && !c.allDisabled(d.rules):
			msg = fmt.Sprintf("this dsqllint:ignore %s suppresses nothing here; remove it", strings.Join(d.rules, ","))
		default:
			continue
		}
		c.pass.Report(analysis.Diagnostic{Pos: d.pos, Category: r.ID, Message: r.Prefix() + msg, URL: r.DocURL()})
	}
}

func (c *checker) allDisabled(ids []string) bool {
	for _, id := range ids {
		if c.settings.Cfg.Enabled(id) {
			return false
		}
	}
	return true
}
