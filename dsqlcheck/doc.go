// Package dsqlcheck runs dsqllint's rules on every statement a program
// really executes, for integration tests run on PostgreSQL while the
// program targets Aurora DSQL.
//
// Install it in one line: wrap the database/sql connector
// (sql.OpenDB(checker.WrapConnector(stdlib.GetConnector(*cfg)))) or set
// the pgx tracer (cfg.ConnConfig.Tracer = checker.Tracer()). Every
// statement is parsed once (results are cached by text) and checked with
// the linter's statement rules at the configured DSQL version; each
// connection's transaction is followed for what only execution shows:
// DDL mixed with DML or a second DDL (DSQL104), isolation options
// (DSQL009), the rows one transaction modifies (DSQL109, counted from
// RowsAffected / CommandTag), and transactions open longer than 300 s.
//
// With WithReject, the database/sql wrapper refuses what DSQL refuses,
// before it reaches PostgreSQL, with an *Error carrying DSQL's SQLSTATE
// and message, so a test fails on PostgreSQL as the code would fail on
// DSQL. A pgx tracer can only observe: pgx gives tracers no way to stop a
// statement; use Verify to fail the test instead.
//
// Statements written for DSQL that PostgreSQL does not run are translated
// by the database/sql wrapper: CREATE INDEX ASYNC and ALTER TABLE ASYNC
// run without ASYNC (a query of them returns a job_id row), and
// CALL sys.wait_for_job(...) returns at once, so one set of migrations
// serves both.
//
// dsqlcheck imports the linter's parser (pg_query, cgo); it belongs in
// tests, never in production code, which uses runtime/occ.
package dsqlcheck
