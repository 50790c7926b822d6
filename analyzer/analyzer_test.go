package analyzer_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/dsqllint/dsqllint/analyzer"
)

func TestShareLock(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "sharelock", "sharelock/queries")
}

func TestMySQLShareLock(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "mysqllock")
}

func TestUnfencedWrite(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "unfenced")
}

func TestDirectives(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.New(), "directives")
}
