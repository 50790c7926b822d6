package rules

import (
	"fmt"
	"strings"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// IndexAsync is DSQL103.
var IndexAsync = register(&Rule{
	ID:       "DSQL103",
	Name:     "index-async",
	Severity: Error,
	Summary:  "CREATE INDEX needs ASYNC on Aurora DSQL, and takes no method, sort order, opclass or schema",
	check:    checkIndexAsync,
})

func checkIndexAsync(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
	ix := factsOf(st).Index
	if ix == nil {
		return
	}
	var conc *sqlparse.Clause
	for i := range ix.Clauses {
		if ix.Clauses[i].Name == "CONCURRENTLY" {
			conc = &ix.Clauses[i]
		}
	}
	switch {
	case conc != nil:
		var fix *Fix
		if w := textOf(ctx, conc.Span); strings.EqualFold(w, "concurrently") && !ix.Async {
			fix = &Fix{Message: "Replace CONCURRENTLY with ASYNC", Edits: []Edit{{Span: conc.Span, New: matchCase("ASYNC", w)}}}
		}
		report(conc.Span, "CREATE INDEX CONCURRENTLY is not supported by Aurora DSQL (0A000 CONCURRENTLY not supported for CREATE INDEX): "+
			"every index builds in the background; write CREATE INDEX ASYNC and wait for its job (CALL sys.wait_for_job(id)) before relying on it", fix)
	case !ix.Async:
		var fix *Fix
		words := textOf(ctx, ix.Words)
		if words != "" {
			fix = insertion("Add ASYNC", ix.Words.End, " "+matchCase("ASYNC", lastWord(words)))
		}
		report(ix.Words, "CREATE INDEX without ASYNC is rejected by Aurora DSQL (0A000 unsupported mode. please use CREATE INDEX ASYNC.); "+
			"write CREATE INDEX ASYNC, which returns a job id: wait for it (CALL sys.wait_for_job(id)) before relying on the index", fix)
	}
	if ix.Keys > 8 {
		report(ix.Words, fmt.Sprintf("index with %d key columns: Aurora DSQL allows at most 8 (54011 more than 8 column keys in an index are not supported)", ix.Keys), nil)
	}
	target := ctx.Config.Target
	for _, c := range ix.Clauses {
		var msg string
		switch c.Name {
		case "QUALIFIED":
			msg = "schema-qualified index name: the index always lives in its table's schema (42601 syntax error at or near \".\"); drop the schema from the index name"
		case "USING":
			msg = "CREATE INDEX " + strings.Join(strings.Fields(textOf(ctx, c.Span)), " ") +
				": Aurora DSQL builds only its own default index type and rejects an access method; drop the USING clause"
		case "ASC", "DESC", "NULLS":
			msg = c.Name + " on an index key: Aurora DSQL does not take a sort order (0A000 specifying sort order not supported for index keys); drop it"
		case "OPCLASS":
			msg = "operator class " + textOf(ctx, c.Span) + " on an index key: Aurora DSQL does not take one (0A000 opclass not supported for index keys); drop it"
		case "COLLATE":
			msg = "COLLATE on an index key: Aurora DSQL databases use the C collation only (COLLATE clause not supported); drop it"
		case "EXPRESSION":
			if target.Before(exprIndexSince) {
				msg = "index on an expression: Aurora DSQL supports expression indexes only since 2026-08-13" + targetNote(ctx) +
					"; index a stored generated column instead"
			}
		case "WHERE":
			if target.Before(partialIndexSince) {
				msg = "partial index (CREATE INDEX ... WHERE): Aurora DSQL supports partial indexes only since 2026-09-15" + targetNote(ctx) +
					"; index the whole table and filter in the query"
			}
		}
		if msg != "" {
			report(c.Span, msg, nil)
		}
	}
}
