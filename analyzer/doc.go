// Package analyzer defines the dsqllint analysis.Analyzer: it finds SQL in
// a Go package — string constants and constant concatenations, fmt.Sprintf
// formats, the query arguments of database/sql, sqlx and pgx calls, and
// .sql files embedded with //go:embed — parses it with sqlparse, runs the
// rules catalogue and reports each finding at the offending clause inside
// the string or file.
//
// # Analyzer dsqllint
//
// dsqllint: report SQL that breaks or silently weakens on Amazon Aurora DSQL
//
// Aurora DSQL speaks PostgreSQL 16 but runs optimistic concurrency: FOR
// SHARE is rejected, FOR UPDATE never blocks, and correctness between
// processes rests on compare-and-swap fences. See docs/rules for every rule.
//
// Each package is checked with its module's settings: the defaults, the
// module's .dsqllint.yaml (package config), then the flags given; and with
// its module's schema (package catalog), discovered and replayed once per
// module root, so that the locking rules judge tables by their columns and
// keys. Strings run through a non-SQL client such as gocql are not SQL.
//
// The package's own query functions are found by data flow: a function
// whose string parameter reaches a query call's SQL argument is a query
// call at that parameter. Each package's analysis returns a txflow.Summary
// of what its functions do with transactions, which the dsqllint command
// joins across the module (package txflow), and exports it as a package
// fact with those of its imports, which a driver that runs one package at
// a time joins in each package (facts.go).
//
// Findings are suppressed with `//dsqllint:ignore DSQL003 -- reason` on the
// line or the line above (Go), or `-- dsqllint:ignore DSQL003 -- reason`
// before the statement (SQL). A suppression without a reason, naming an
// unknown rule, or suppressing nothing is itself reported (DSQL000).
package analyzer
