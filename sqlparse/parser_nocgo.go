//go:build !cgo

package sqlparse

import (
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"
	wasm "github.com/wasilibs/go-pgquery"
)

// wasmParser serialises the WebAssembly parser: go-pgquery compiles
// libpg_query afresh (about 1.4 s and 250 MB) for every instance it adds
// to serve concurrent calls, while one instance parses a statement in
// about 0.3 ms, a small share of any run.
var wasmParser sync.Mutex

// parseSQL is libpg_query compiled to WebAssembly (run by wazero), for
// builds without a C compiler: it returns pg_query_go's own tree.
func parseSQL(text string) (*pg.ParseResult, error) {
	wasmParser.Lock()
	defer wasmParser.Unlock()
	return wasm.Parse(text)
}

// ParserBuild names the parser this binary carries: "cgo" (libpg_query
// compiled in) or "wasm" (libpg_query compiled to WebAssembly, run by
// wazero, when cgo is off).
const ParserBuild = "wasm"
