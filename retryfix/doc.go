// Package retryfix writes the fixes that bring in the OCC runtime: for
// DSQL005, a function that begins a transaction rewritten to run its
// statements in the retry helper of runtime/occ or runtime/occpgx (a
// fresh transaction per attempt), and a statement run on a pool wrapped in
// the helper's statement retry; for DSQL004, a compare-and-swap write
// whose result is dropped rewritten to ExecCAS, which fails unless one row
// changed. A fix is offered only where the rewrite is exact; otherwise the
// reason is returned, for the finding to say. It reads what package gosql
// found and knows nothing of the rules.
package retryfix
