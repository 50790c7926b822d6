package rules

// IgnoreDirective is DSQL000: it has no check of its own; the analyzer
// reports malformed and unused dsqllint:ignore comments under it.
var IgnoreDirective = register(&Rule{
	ID:       "DSQL000",
	Name:     "ignore-directive",
	Severity: Warning,
	Summary:  "a dsqllint:ignore comment that is malformed or suppresses nothing",
})
