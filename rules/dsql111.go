package rules

import (
	"github.com/dsqllint/dsqllint/sqlparse"
)

// UnsupportedExpression is DSQL111.
var UnsupportedExpression = register(&Rule{
	ID:       "DSQL111",
	Name:     "unsupported-expression",
	Severity: Error,
	Summary:  "expressions Aurora DSQL cannot evaluate: full-text search with a configuration, geometric types",
	check:    checkUnsupportedExpression,
})

func checkUnsupportedExpression(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
	f := factsOf(st)
	for _, c := range f.Calls {
		if c.Arg == "" {
			continue
		}
		report(c.Span, c.Name+"('"+c.Arg+"', ...) fails on Aurora DSQL, which has no text search configurations "+
			"(42704 text search configuration \""+c.Arg+"\" does not exist); search in the application or a search service, "+
			"or match short texts with LIKE / ILIKE", nil)
	}
	seen := map[string]bool{}
	for _, g := range f.Geometric {
		if seen[g.Name] {
			continue // once per type and statement
		}
		seen[g.Name] = true
		report(g.Span, "type "+g.Name+" does not exist on Aurora DSQL, not even at query time (0A000 datatype "+g.Name+
			" not supported); compute with numeric columns (x, y, radius) in SQL or in the application", nil)
	}
}
