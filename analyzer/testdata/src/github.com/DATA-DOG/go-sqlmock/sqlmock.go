// Package sqlmock is a stub of go-sqlmock's expectation API.
package sqlmock

// Sqlmock records what a test expects the code under test to run.
type Sqlmock struct{}

// ExpectedExec is one expected Exec.
type ExpectedExec struct{}

// ExpectExec expects an Exec whose query matches the regular expression.
func (Sqlmock) ExpectExec(expectedSQL string) *ExpectedExec { return &ExpectedExec{} }

// ExpectQuery expects a Query whose query matches the regular expression.
func (Sqlmock) ExpectQuery(expectedSQL string) *ExpectedExec { return &ExpectedExec{} }
