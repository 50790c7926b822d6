//go:build !cgo

package sqlparse

import (
	"errors"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"
	wasm "github.com/wasilibs/go-pgquery"
	"github.com/wasilibs/go-pgquery/parser"
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

// parseErrorPos is where the parser stopped (1-based, in characters), or 0.
func parseErrorPos(err error) int {
	var pe *parser.Error
	if errors.As(err, &pe) {
		return pe.Cursorpos
	}
	return 0
}

// ParserBuild names the parser this binary carries: "cgo" (libpg_query
// compiled in) or "wasm" (libpg_query compiled to WebAssembly, run by
// wazero, when cgo is off).
const ParserBuild = "wasm"

// parsePlpgsql is libpg_query's PL/pgSQL parser: the function's body as JSON.
func parsePlpgsql(text string) (string, error) {
	wasmParser.Lock()
	defer wasmParser.Unlock()
	return wasm.ParsePlPgSqlToJSON(text)
}
