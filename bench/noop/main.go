// Command noop is the baseline for bench/run.sh: an analyzer that does
// nothing, loaded and run like dsqllint, so that the difference is what
// dsqllint's own work costs.
package main

import (
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/singlechecker"
)

var analyzer = &analysis.Analyzer{
	Name: "noop",
	Doc:  "noop does nothing; it is the baseline for dsqllint's benchmarks",
	Run:  func(*analysis.Pass) (any, error) { return nil, nil },
}

func main() { singlechecker.Main(analyzer) }
