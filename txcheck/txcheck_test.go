package txcheck_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/modconf"
	"github.com/dsqllint/dsqllint/txcheck"
)

// TestFacts: each package exports what crosses packages, by kind — a lock
// run on a handed transaction, a retry helper and a 40001 predicate,
// Begins and the closure handed to a retry, a retrying decorator's
// implementation — with the summaries of the packages below it; a package
// whose SQL crosses nothing exports none.
func TestFacts(t *testing.T) {
	tx := txcheck.New(gosql.New(modconf.NewRoot()))
	analysistest.Run(t, analysistest.TestData(), tx, "facts/lock", "facts/retry", "facts/begin", "facts/quiet", "facts/deco")
}
