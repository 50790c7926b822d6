package rules

import (
	"strings"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// ExplicitLock is DSQL007.
var ExplicitLock = register(&Rule{
	ID:       "DSQL007",
	Name:     "explicit-lock",
	Severity: Error,
	Summary:  "LOCK TABLE and advisory lock functions are rejected by Aurora DSQL",
	check: func(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
		if st.Node == "LockStmt" {
			report(st.KeywordSpan, "LOCK TABLE is rejected by Aurora DSQL (unsupported statement: Lock): "+
				"there are no table locks under optimistic concurrency; "+
				"make writers conflict on a row they all update (a version or lease row, compare-and-swap) and retry on 40001", nil)
		}
		for _, c := range factsOf(st).Calls {
			if !strings.HasPrefix(c.Name, "pg_advisory_") && !strings.HasPrefix(c.Name, "pg_try_advisory_") {
				continue
			}
			report(c.Span, c.Name+" is not supported by Aurora DSQL (0A000 function "+c.Name+" not supported): "+
				"there are no advisory locks; take a lease row with a compare-and-swap UPDATE "+
				"(UPDATE locks SET owner = $me, expires_at = $t WHERE name = $1 AND expires_at < now()) and check one row changed, "+
				"or run the migration tool without its advisory lock", nil)
		}
	},
})
