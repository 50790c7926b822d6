// Package rules is dsqllint's rule catalogue: what breaks or silently
// weakens on Aurora DSQL, decided over sqlparse's statement model. It knows
// nothing of Go syntax; the analyzer supplies what only the Go code can tell
// (which tables other statements fence, which rows the function already
// locked). One file per rule; rule IDs are stable public names.
package rules
