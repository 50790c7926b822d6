package analyzer

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"

	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
	"golang.org/x/tools/go/analysis"
)

// suppressed reports whether a directive silences finding f at pos, marking
// the directive used.
func (c *linter) suppressed(p *gosql.Parsed, f rules.Finding, pos token.Pos) bool {
	for _, d := range p.Dirs {
		if d.Names(f.Rule.ID) && d.Stmt < len(p.Script.Stmts) && spanIn(f.Span, p.Script.Stmts[d.Stmt].Span) {
			d.Used = true
			return true
		}
	}
	var anchor ast.Node
	if p.Text.Node != nil {
		anchor = p.Text.Node
	}
	return c.SuppressedAt(f.Rule.ID, pos, anchor)
}

func spanIn(a, b sqlparse.Span) bool { return a.Start >= b.Start && a.Start <= b.End }

// reportDirectives reports malformed directives and those that silenced
// nothing, unless the rules they name are disabled.
func (c *linter) reportDirectives(parsed []*gosql.Parsed) {
	all := c.Directives
	for _, p := range parsed {
		all = append(all, p.Dirs...)
	}
	r := rules.ByID("DSQL000")
	for _, d := range all {
		var msg string
		switch {
		case d.Bad != "":
			msg = "this dsqllint:ignore " + d.Bad
		case !d.Used && !c.allDisabled(d.Rules):
			msg = fmt.Sprintf("this dsqllint:ignore %s suppresses nothing here; remove it", strings.Join(d.Rules, ","))
		default:
			continue
		}
		c.pass.Report(analysis.Diagnostic{Pos: d.Pos, Category: r.ID, Message: r.Prefix() + msg, URL: r.DocURL()})
	}
}

func (c *linter) allDisabled(ids []string) bool {
	for _, id := range ids {
		if c.Settings.Cfg.Enabled(id) {
			return false
		}
	}
	return true
}
