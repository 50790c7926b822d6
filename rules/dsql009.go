package rules

import (
	"strings"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// IsolationLevel is DSQL009. Its Go form (sql.TxOptions, pgx.TxOptions) is
// reported by the analyzer.
var IsolationLevel = register(&Rule{
	ID:       "DSQL009",
	Name:     "isolation-level",
	Severity: Error,
	Summary:  "isolation levels other than REPEATABLE READ, and SET TRANSACTION, are rejected by Aurora DSQL (0A000)",
	check: func(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
		tc := st.Tx
		if tc == nil {
			return
		}
		switch tc.Kind {
		case sqlparse.TxBegin:
			if tc.Isolation == "" || tc.Isolation == "repeatable read" {
				return
			}
			level := strings.ToUpper(tc.Isolation)
			report(tc.IsolationSpan, "ISOLATION LEVEL "+level+" is rejected by Aurora DSQL (0A000 Unsupported isolation level: "+level+
				"); DSQL runs every transaction at snapshot isolation (REPEATABLE READ): drop the clause", dropIsolation(ctx.Text, tc))
		case sqlparse.TxSetTransaction:
			if tc.Isolation != "" && tc.Isolation != "repeatable read" {
				// DSQL judges the level before the statement.
				level := strings.ToUpper(tc.Isolation)
				report(st.KeywordSpan, "SET TRANSACTION ISOLATION LEVEL "+level+" is rejected by Aurora DSQL (0A000 Unsupported isolation level: "+level+
					") and aborts the transaction; drop it: every DSQL transaction runs at REPEATABLE READ", nil)
				return
			}
			report(st.KeywordSpan, "SET TRANSACTION is rejected by Aurora DSQL (0A000 setting configuration parameter \"TRANSACTION\" not supported) and aborts the transaction; "+
				"drop it, and use BEGIN [READ ONLY | READ WRITE] for the access mode", nil)
		case sqlparse.TxSetDefault:
			report(st.KeywordSpan, "changing the default isolation is rejected by Aurora DSQL (0A000 setting configuration parameter \"default_transaction_isolation\" not supported); "+
				"drop it: every DSQL transaction runs at REPEATABLE READ", nil)
		}
	},
})

// dropIsolation removes `ISOLATION LEVEL x` and the space before it.
func dropIsolation(text string, tc *sqlparse.TxControl) *Fix {
	sp := tc.IsolationSpan
	if sp.Start <= 0 || sp.End > len(text) || sp.Start >= sp.End {
		return nil
	}
	start := sp.Start
	for start > 0 && (text[start-1] == ' ' || text[start-1] == '\t') {
		start--
	}
	end := sp.End
	if rest := strings.TrimLeft(text[end:], " \t"); strings.HasPrefix(rest, ",") {
		end = len(text) - len(rest) + 1 // and the comma that joined the next mode
		start = sp.Start
		for end < len(text) && (text[end] == ' ' || text[end] == '\t') {
			end++
		}
	}
	return &Fix{Message: "Drop ISOLATION LEVEL " + strings.ToUpper(tc.Isolation), Edits: []Edit{{Span: sqlparse.Span{Start: start, End: end}}}}
}

// IsolationMessage is DSQL009's message for a Go transaction option.
func IsolationMessage(option, level string) string {
	return option + " " + level + " makes the driver send BEGIN ISOLATION LEVEL, which Aurora DSQL rejects (0A000 Unsupported isolation level); " +
		"DSQL runs every transaction at snapshot isolation (REPEATABLE READ): drop the option"
}
