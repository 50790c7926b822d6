//go:build cgo

package sqlparse

import pg "github.com/pganalyze/pg_query_go/v6"

// parseSQL is libpg_query's parser, compiled in through cgo.
func parseSQL(text string) (*pg.ParseResult, error) { return pg.Parse(text) }

// ParserBuild names the parser this binary carries: "cgo" (libpg_query
// compiled in) or "wasm" (libpg_query compiled to WebAssembly, run by
// wazero, when cgo is off).
const ParserBuild = "cgo"
