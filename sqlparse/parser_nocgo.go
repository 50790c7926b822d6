//go:build !cgo

package sqlparse

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	wasm "github.com/wasilibs/go-pgquery"
)

// parseSQL is libpg_query compiled to WebAssembly (run by wazero), for
// builds without a C compiler: it returns pg_query_go's own tree.
func parseSQL(text string) (*pg.ParseResult, error) { return wasm.Parse(text) }

// ParserBuild names the parser this binary carries: "cgo" (libpg_query
// compiled in) or "wasm" (libpg_query compiled to WebAssembly, run by
// wazero, when cgo is off).
const ParserBuild = "wasm"
