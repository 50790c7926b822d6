// Package gosql defines the pass that finds the SQL a Go package runs:
// string constants and constant concatenations, fmt.Sprintf formats,
// strings built step by step, the query arguments of database/sql, sqlx,
// pgx and the package's own query functions (found by data flow),
// squirrel builders, //go:embed and sqlc query files. Its Result, a
// *Package, holds each text with the map from its SQL back to the Go
// source, parsed once (sqlparse); the query calls that run them, with
// where each call sits (its function, the loops around it, the call a
// closure holding it is handed to); and the //dsqllint:ignore directives.
// It judges nothing: the transaction flow (package txcheck) and the rules
// (package analyzer) read it. Strings run through a non-SQL client such
// as gocql are not SQL.
package gosql
