// Package retryfix writes DSQL005's fixes: a function that begins a
// transaction rewritten to run its statements in the OCC retry helper of
// runtime/occ or runtime/occpgx (a fresh transaction per attempt), and a
// statement run on a pool wrapped in the helper's statement retry. A fix
// is offered only where the rewrite is exact; otherwise the reason is
// returned, for the finding to say. It reads what package gosql found and
// knows nothing of the rules.
package retryfix
