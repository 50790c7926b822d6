//go:build cgo

package sqlparse

import (
	"errors"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
)

// parseSQL is libpg_query's parser, compiled in through cgo.
func parseSQL(text string) (*pg.ParseResult, error) { return pg.Parse(text) }

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
const ParserBuild = "cgo"

// parsePlpgsql is libpg_query's PL/pgSQL parser: the function's body as JSON.
func parsePlpgsql(text string) (string, error) { return pg.ParsePlPgSqlToJSON(text) }
