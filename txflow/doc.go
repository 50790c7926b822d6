// Package txflow is dsqllint's module stage: what no single package shows
// about transactions.
//
// Each package's analysis (package analyzer) returns a Summary of what its
// functions do, inferred from the code: the FOR UPDATE locks and
// key-picked writes they run on a parameter or their receiver, the
// transactions they begin and where each goes (passed on, returned,
// wrapped), the closures and method values they hand to other functions,
// the interface methods their types implement, which calls run inside a
// 40001 retry, the compare-and-swap results they return or drop, and the
// statements that lock outside any transaction. Join joins the summaries
// of every package loaded in one run (the packages of a module, or of all
// the modules of a go.work) and follows each transaction from its Begin to
// the statements run in it, through calls, interfaces, closures and
// helpers that return a transaction. Merge applies it to the packages'
// diagnostics: it drops the package findings the module shows wrong and
// adds what only the module shows (Module.Findings), once per position
// and rule.
//
// It knows Go positions and rule messages, never Go syntax or SQL: the
// analyzer builds the summaries, the dsqllint command and the tests call
// the join. No analysis facts: go vet and the other drivers, which run
// package by package, keep the per-package judgement.
package txflow
