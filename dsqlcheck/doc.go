// Package dsqlcheck runs dsqllint's rules on every statement a program
// really executes, for integration tests run on PostgreSQL while the
// program targets Aurora DSQL.
//
// Install it in one line. For pgx, a pgxpool or pgx's stdlib driver, hook
// the connection config (checker.HookPGX(&cfg.ConnConfig.Config)): every
// connection then goes through the wire checker, which speaks the
// PostgreSQL protocol between the driver and the server. For database/sql
// with any driver, wrap the connector
// (sql.OpenDB(checker.WrapConnector(stdlib.GetConnector(*cfg)))). For
// clients in other languages, run the checker as a proxy (NewProxy, or
// the dsqlcheck command). A pgx tracer (cfg.ConnConfig.Tracer =
// checker.Tracer()) reports with the calling line but cannot refuse.
//
// Every statement is parsed once (results are cached by text) and checked
// with the linter's statement rules at the configured DSQL version; each
// connection's transaction is followed for what only execution shows:
// DDL mixed with DML or a second DDL (DSQL104), isolation options
// (DSQL009), the rows one transaction modifies (DSQL109), and
// transactions open longer than 300 s.
//
// With WithReject, what DSQL refuses fails before it reaches PostgreSQL,
// with DSQL's SQLSTATE and message (an *Error from the wrapper, a
// *pgconn.PgError through the wire checker), and a refusal inside a
// transaction aborts it on the server too: later statements get 25P02
// until ROLLBACK, and COMMIT rolls back. The wire checker does this by
// sending, in the refused statement's place, one that fails on the server
// (the name of a prepared statement that does not exist), so the server
// keeps the protocol's order, skips the pipeline to Sync and reports the
// transaction's state; the client gets DSQL's ErrorResponse instead of
// the server's. DML that crosses the row limit is held at its end (a
// transaction around an autocommit statement, Flush before Sync) so that
// it can be refused before it commits.
//
// Statements written for DSQL that PostgreSQL does not run are translated:
// CREATE INDEX ASYNC runs without ASYNC; ALTER TABLE ASYNC runs as a job
// whose failure fails the job, not the statement, as on DSQL; a query of
// either returns a job_id row (a UUID, as DSQL's). CALL sys.wait_for_job
// returns at once, refusing what DSQL refuses (a subquery argument, a
// literal that is no UUID, a call as a function), and sys.jobs is read
// from the server's catalog and the jobs run (every index built is a
// completed job, a failed ALTER TABLE ASYNC a failed one with its
// reason), so one set of migrations serves both.
//
// dsqlcheck imports the linter's parser (pg_query, cgo); it belongs in
// tests, never in production code, which uses runtime/occ.
package dsqlcheck
