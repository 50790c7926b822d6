// Package txcheck defines the transaction-flow pass: over the query calls
// package gosql finds, it follows which transaction each statement runs
// on, where that transaction begins, what runs it again on SQLSTATE 40001
// (a retry helper, a loop that checks for the error, a retrying
// decorator), and which compare-and-swap results are read. Its Result is
// the package's txflow.Summary, the Go-flow findings (DSQL004, DSQL005,
// DSQL009, DSQL010 and the ORM's lock clauses) for the pass that reports
// them, and the view DSQL003 reads of what ran before a statement in its
// transaction. Each package exports its summary as a txflow.Fact with
// those of the packages below it, so that a driver that runs one package
// at a time joins them (txflow.JoinPackage); the dsqllint command joins
// every package itself and exports none.
package txcheck
