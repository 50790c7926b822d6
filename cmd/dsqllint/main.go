// Command dsqllint reports SQL that breaks or silently weakens on Amazon
// Aurora DSQL.
//
//	dsqllint [flags] PACKAGES...     lint Go packages and the .sql files they embed
//	dsqllint [flags] FILE.sql|DIR... lint plain SQL files (sqlc queries, migrations)
//	go vet -vettool=$(command -v dsqllint) ./...
//	go fix -fixtool=$(command -v dsqllint) ./...
//
// Flags shared by both modes: -format=text|json|sarif|github|markdown (several,
// comma-separated, each optionally to a file: -format=github,sarif:out.sarif),
// -json (the x/tools JSON tree), -fail-on=warning|error, -baseline=FILE and
// -write-baseline=FILE (report only findings not recorded before), -c=N
// (context lines), -fix (apply suggested fixes), -diff (with -fix: print a
// diff instead of writing), -timing (load and analysis time, slowest
// packages), -cpuprofile and -memprofile (pprof files), plus the
// analyzer's own flags (see -help).
//
// Exit status: 0 clean, 3 findings at or above -fail-on reported, 1 the tool
// failed (load errors, bad flags, an unreadable baseline). -json and -fix
// keep the x/tools convention and exit 0 with findings.
package main

import (
	"encoding/json"
	"os"
	"strings"

	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/dsqllint/dsqllint/analyzer"
	"github.com/dsqllint/dsqllint/modconf"
)

func main() {
	if modconf.Released(version) {
		modconf.Version = version // a release build's runtime is its own version
	}
	args := os.Args[1:]
	if vetProtocol(args) {
		// go vet / go fix: singlechecker hands the .cfg to unitchecker and
		// answers -V=full and -flags, keeping analyzer flags unprefixed.
		if factsOnly(args) {
			analyzer.FactsOnly(analyzer.Analyzer)
		}
		singlechecker.Main(analyzer.Analyzer)
		return
	}
	os.Exit(run(analyzer.Analyzer, args))
}

// factsOnly reports a go vet run on a dependency of the packages vetted:
// the go command wants only its facts (unitchecker's VetxOnly) and throws
// its findings away. A .cfg that cannot be read is left to unitchecker to
// report.
func factsOnly(args []string) bool {
	for _, a := range args {
		if !strings.HasSuffix(a, ".cfg") {
			continue
		}
		data, err := os.ReadFile(a)
		if err != nil {
			return false
		}
		var cfg struct{ VetxOnly bool }
		return json.Unmarshal(data, &cfg) == nil && cfg.VetxOnly
	}
	return false
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
