package main

import (
	"fmt"
	"os"

	rulepages "github.com/dsqllint/dsqllint/docs/rules"
	"github.com/dsqllint/dsqllint/rules"
)

// explainRule prints a rule's page, as rustc --explain does.
func explainRule(id string) int {
	if page, ok := rulepages.Page(id); ok {
		fmt.Print(page)
		return exitClean
	}
	fmt.Fprintf(os.Stderr, "dsqllint: -explain: no rule %q; the rules are:\n", id)
	for _, r := range rules.All() {
		fmt.Fprintf(os.Stderr, "  %s %s: %s\n", r.ID, r.Name, r.Summary)
	}
	return exitFailure
}
