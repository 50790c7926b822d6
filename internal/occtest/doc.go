// Package occtest runs the retry runtime (runtime/occ, runtime/occprom)
// against a real PostgreSQL. The runtime's modules require nothing their
// users do not (occ only the standard library), so the tests that need a
// driver, the server the tests start, or dsqllint's own packages live here,
// in the linter's module; runtime/occpgx's module runs its own.
package occtest
