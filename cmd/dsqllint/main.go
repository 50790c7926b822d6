// Command dsqllint reports SQL that breaks or silently weakens on Amazon
// Aurora DSQL.
//
//	dsqllint [flags] PACKAGES...     lint Go packages and the .sql files they embed
//	dsqllint [flags] FILE.sql|DIR... lint plain SQL files (sqlc queries, migrations)
//	go vet -vettool=$(command -v dsqllint) ./...
//	go fix -fixtool=$(command -v dsqllint) ./...
//
// Flags shared by both modes: -json (the x/tools JSON tree), -c=N (context
// lines), -fix (apply suggested fixes), -diff (with -fix: print a diff
// instead of writing), plus the analyzer's own flags (see -help).
//
// Exit status: 0 clean (and always with -json or -fix), 3 findings reported,
// 1 the tool failed (load errors, bad flags).
package main

import (
	"os"
	"strings"

	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/dsqllint/dsqllint/analyzer"
)

func main() {
	args := os.Args[1:]
	if vetProtocol(args) {
		// go vet / go fix: singlechecker hands the .cfg to unitchecker and
		// answers -V=full and -flags, keeping analyzer flags unprefixed.
		singlechecker.Main(analyzer.Analyzer)
		return
	}
	os.Exit(run(analyzer.Analyzer, args))
}

// vetProtocol reports an invocation by the go command: a single .cfg file,
// or the -V=full and -flags queries that precede it.
func vetProtocol(args []string) bool {
	for _, a := range args {
		if a == "-V=full" || a == "-flags" || strings.HasSuffix(a, ".cfg") {
			return true
		}
	}
	return false
}
