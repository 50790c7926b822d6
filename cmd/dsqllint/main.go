// Command dsqllint reports SQL that breaks or silently weakens on Amazon
// Aurora DSQL.
//
//	dsqllint [flags] PACKAGES...     lint Go packages (x/tools driver flags: -json, -fix, -diff, -c)
//	dsqllint [flags] FILE.sql|DIR... lint plain SQL files (sqlc queries, migrations)
//	go vet -vettool=$(command -v dsqllint) ./...
//
// Exit status: 0 clean, 3 findings reported, 1 the tool failed (load errors,
// bad flags).
package main

import (
	"os"

	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/dsqllint/dsqllint/analyzer"
)

func main() {
	if sqlMode(os.Args[1:]) {
		os.Exit(runSQL(analyzer.Analyzer, os.Args[1:]))
	}
	singlechecker.Main(analyzer.Analyzer)
}
