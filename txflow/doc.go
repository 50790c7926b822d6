// Package txflow is dsqllint's module stage: what no single package shows
// about transactions.
//
// Each package's analysis (package analyzer) returns a Summary of what its
// functions do, inferred from the code: the lock sites it writes and the
// ways it runs them (on which handle, in which function, inside which
// retry), every call of a module function, of a function parameter or of
// a closure handed to code outside the module, the transactions they
// begin and where each goes (passed on, returned, wrapped), the closures
// and method values they hand to other functions, its interfaces and the
// method sets of its types, its retry constructs, the compare-and-swap
// results they return or drop, and what its statements show of
// contention. Join joins the summaries of every package loaded in one run
// (the packages of a module, or of all the modules of a go.work): it
// judges each lock by walking back from every way it runs to where its
// transaction begins (locks.go), judges every write with what the whole
// module shows of contention (DSQL003), and follows transactions to the writes they fence. Merge applies
// it to the packages' diagnostics: its DSQL003 and DSQL005 replace the
// packages', and it adds what only the module shows.
//
// It knows Go positions and rule messages, never Go syntax or SQL: the
// analyzer builds the summaries, the dsqllint command and the tests call
// the join. The summaries also travel as a package fact (Fact): a driver
// that runs one package at a time joins a package's summary with those
// its imports carry (JoinPackage). Across processes each summary is sent
// on its own, without what leads to nothing the join judges (prune.go).
package txflow
