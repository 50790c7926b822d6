// Package analyzer defines the dsqllint analysis.Analyzer, the pass that
// reports: over the SQL texts package gosql finds, parsed once, it runs
// the rules catalogue with the package's fence evidence (package fencing)
// and reports each finding at the offending clause inside the string or
// file, with the Go-flow findings of the transaction-flow pass (package
// txcheck).
//
// # Analyzer dsqllint
//
// dsqllint: report SQL that breaks or silently weakens on Amazon Aurora DSQL
//
// Aurora DSQL speaks PostgreSQL 16 but runs optimistic concurrency: FOR
// SHARE is rejected, FOR UPDATE never blocks, and correctness between
// processes rests on compare-and-swap fences. See docs/rules for every rule.
//
// Each package is checked with its module's settings (package modconf):
// the defaults, the module's .dsqllint.yaml, then the flags given; and
// with its module's schema, discovered and replayed once per module root.
//
// Its Result is the package's txflow.Summary, with what the rules add to
// it (the fences the package shows, the judge of its writes), which the
// dsqllint command joins across the module (ModuleStage). A driver that
// runs one package at a time holds the package's findings until they are
// joined with the summaries its imports carry as facts (facts.go), and
// reports what lands in the package.
//
// Findings are suppressed with `//dsqllint:ignore DSQL003 -- reason` on the
// line or the line above (Go), or `-- dsqllint:ignore DSQL003 -- reason`
// before the statement (SQL). A suppression without a reason, naming an
// unknown rule, or suppressing nothing is itself reported (DSQL000).
package analyzer
