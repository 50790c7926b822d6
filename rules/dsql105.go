package rules

import (
	"strings"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// UnsupportedStatement is DSQL105.
var UnsupportedStatement = register(&Rule{
	ID:       "DSQL105",
	Name:     "unsupported-statement",
	Severity: Error,
	Summary:  "statements Aurora DSQL does not run: TRUNCATE, VACUUM, triggers, extensions, LISTEN/NOTIFY, PL/pgSQL ...",
	check:    checkUnsupportedStatement,
})

// unsupported maps command tags to what DSQL answers and what to do.
var unsupported = map[string]string{
	"VACUUM":                      "(0A000 unsupported VACUUM statement); DSQL needs no vacuuming: drop it (ANALYZE is supported)",
	"ALTER SYSTEM":                "(0A000 unsupported statement: AlterSystem); DSQL has no server settings to change",
	"CREATE EXTENSION":            "(0A000 unsupported statement: CreateExtension); there are no extensions: gen_random_uuid() is built in",
	"CREATE TRIGGER":              "(0A000 CREATE TRIGGER not supported); move the trigger's work into the application's transaction",
	"CREATE EVENT TRIGGER":        "(0A000); there are no triggers",
	"LISTEN":                      "(0A000 unsupported statement: Listen); use a queue table polled by key, or a message service",
	"UNLISTEN":                    "(0A000 unsupported statement: Unlisten); there is no LISTEN/NOTIFY",
	"NOTIFY":                      "(0A000 unsupported statement: Notify); use a queue table polled by key, or a message service",
	"CREATE TYPE":                 "(0A000 CREATE TYPE not supported); use text with a CHECK constraint, or a domain (CREATE DOMAIN works)",
	"ALTER TYPE":                  "(0A000 ALTER TYPE not supported); there are no user-defined enum, composite or range types: use text with a CHECK constraint",
	"DROP TYPE":                   "(0A000 unsupported object in DROP statement); there are no user-defined types to drop: remove the statement",
	"DROP MATERIALIZED VIEW":      "(0A000; AWS dsql-lint rejects it); there are no materialized views to drop: remove the statement",
	"DROP POLICY":                 "(0A000; AWS dsql-lint rejects it): row-level security is not supported; remove the statement",
	"CREATE DATABASE":             "(0A000 unsupported statement: Createdb); a cluster has one database, postgres: use schemas",
	"CREATE TABLESPACE":           "(0A000 unsupported statement: CreateTableSpace); storage is managed by DSQL",
	"CREATE COLLATION":            "(0A000): the database has the C collation only, ORDER BY compares bytes; sort in the application, or by a column that sorts as wanted",
	"MERGE":                       "(0A000 unsupported statement type: MERGE); use INSERT ... ON CONFLICT DO UPDATE",
	"DECLARE CURSOR":              "(0A000); page with WHERE key > $last ORDER BY key LIMIT n",
	"PREPARE":                     "(0A000): SQL-level prepared statements are not supported; let the driver prepare statements",
	"EXECUTE":                     "(0A000): SQL-level prepared statements are not supported; let the driver prepare statements",
	"DEALLOCATE":                  "(0A000): only DEALLOCATE ALL is supported; let the driver manage prepared statements",
	"DISCARD":                     "(0A000); close the connection instead",
	"LOAD":                        "(0A000); there are no loadable modules",
	"CREATE MATERIALIZED VIEW":    "(0A000 unsupported statement: CreateTableAs); use a view, or a table the application refreshes",
	"REFRESH MATERIALIZED VIEW":   "(0A000); there are no materialized views",
	"CREATE TABLE AS":             "(0A000 unsupported statement: CreateTableAs); CREATE TABLE with its columns, then INSERT ... SELECT in batches",
	"SELECT INTO":                 "(0A000 unsupported statement: CreateTableAs); CREATE TABLE with its columns, then INSERT ... SELECT in batches",
	"CREATE POLICY":               "(0A000): row-level security is not supported; filter by tenant in the queries",
	"ALTER POLICY":                "(0A000): row-level security is not supported; filter by tenant in the queries",
	"CREATE PROCEDURE":            "(0A000 PROCEDURE is not supported); run the steps from the application, or use a LANGUAGE sql function",
	"DO":                          "(0A000): DO blocks run PL/pgSQL, which DSQL does not support; run the steps from the application",
	"CREATE FOREIGN TABLE":        "(0A000 unsupported statement: CreateForeignTable); there are no foreign data wrappers",
	"CREATE SERVER":               "(0A000); there are no foreign data wrappers",
	"CREATE FOREIGN DATA WRAPPER": "(0A000); there are no foreign data wrappers",
	"CREATE USER MAPPING":         "(0A000); there are no foreign data wrappers",
	"IMPORT FOREIGN SCHEMA":       "(0A000); there are no foreign data wrappers",
}

func checkUnsupportedStatement(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
	f := factsOf(st)
	if f.Truncate != nil {
		truncateFinding(ctx, st, f.Truncate, report)
	}
	tag := f.Tag
	switch {
	case tag == "CREATE FUNCTION" && f.Language != "" && f.Language != "sql":
		report(st.KeywordSpan, "CREATE FUNCTION ... LANGUAGE "+f.Language+" is not supported by Aurora DSQL (0A000 CREATE FUNCTION with language "+
			f.Language+" not supported); only LANGUAGE sql functions run there: rewrite it in SQL or move it into the application", nil)
	case tag == "DO" && f.Language != "" && f.Language != "plpgsql":
		report(st.KeywordSpan, "DO block in LANGUAGE "+f.Language+" is not supported by Aurora DSQL (0A000); run the steps from the application", nil)
	case tag == "COPY" && f.CopyFile:
		report(st.KeywordSpan, "COPY to or from a server file or program is not supported by Aurora DSQL (0A000); "+
			"copy through the client: COPY ... FROM STDIN / TO STDOUT (psql \\copy, pgx CopyFrom)", nil)
	case tag == "ALTER TYPE" && f.RenameType:
		report(st.KeywordSpan, "ALTER TYPE ... RENAME is not supported by Aurora DSQL (0A000 unsupported object in RENAME statement); "+
			"there are no user-defined types: use text with a CHECK constraint", nil)
	case tag == "DROP TRIGGER" && f.Drop != nil && !f.Drop.IfExists:
		report(st.KeywordSpan, "DROP TRIGGER is not supported by Aurora DSQL (0A000; AWS dsql-lint rejects it): there are no triggers to drop; "+
			"remove the statement, or write DROP TRIGGER IF EXISTS name ON table, which DSQL accepts", nil)
	case (tag == "CREATE STATISTICS" || tag == "ALTER STATISTICS") && ctx.Config.Target.Before(statisticsSince):
		report(st.KeywordSpan, tag+" is supported by Aurora DSQL only since 2026-08-27"+targetNote(ctx)+" (0A000); drop it for older clusters", nil)
	case tag == "CREATE TYPE" && (st.Node == "CompositeTypeStmt" || st.Node == "CreateRangeStmt"):
		// DSQL names the statement's node for these, as it does for most.
		report(st.KeywordSpan, "CREATE TYPE is not supported by Aurora DSQL (0A000 unsupported statement: "+strings.TrimSuffix(st.Node, "Stmt")+
			"); there are no user-defined composite or range types: use columns of their parts, or two columns for a range's bounds", nil)
	default:
		if what, ok := unsupported[tag]; ok {
			report(st.KeywordSpan, tag+" is not supported by Aurora DSQL "+what, nil)
		}
	}
	if f.Alter != nil {
		for _, c := range f.Alter.Cmds {
			if c.Kind == sqlparse.AlterRowSecurity {
				report(c.Span, "row-level security is not supported by Aurora DSQL (0A000); filter by tenant in the queries", nil)
			}
		}
	}
	for _, c := range f.Calls {
		switch c.Name {
		case "pg_notify":
			report(c.Span, "pg_notify() is not supported by Aurora DSQL: there is no LISTEN/NOTIFY (0A000 unsupported statement: Notify); "+
				"use a queue table polled by key, or a message service", nil)
		case "lastval":
			report(c.Span, "lastval() is not supported by Aurora DSQL; use currval('sequence_name'), or INSERT ... RETURNING id", nil)
		}
	}
}

// truncateFinding reports TRUNCATE, with a DELETE FROM fix for the plain
// one-table form.
func truncateFinding(ctx *Context, st *sqlparse.Statement, t *sqlparse.TruncateDef, report func(sqlparse.Span, string, *Fix)) {
	msg := "TRUNCATE is not supported by Aurora DSQL (0A000 unsupported statement: Truncate); use DELETE FROM, " +
		"but a transaction may modify at most 3,000 rows (54000 transaction row limit exceeded): delete a large table in batches by key, or drop and re-create it"
	var fix *Fix
	words := textOf(ctx, t.Words)
	if t.Plain && !t.Restart && !t.Cascade && t.Tables == 1 && len(words) >= len("truncate") && strings.EqualFold(words[:len("truncate")], "truncate") {
		fix = &Fix{
			Message: "Replace TRUNCATE with DELETE FROM (mind the 3,000-row transaction limit)",
			Edits:   []Edit{{Span: t.Words, New: matchCase("DELETE FROM", words[:len("truncate")])}},
		}
	}
	report(st.KeywordSpan, msg, fix)
}
