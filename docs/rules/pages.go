// Package rulepages holds the rule pages of this directory, embedded in
// the dsqllint binary for -explain.
package rulepages

import (
	"embed"
	"strings"
)

//go:embed DSQL*.md
var pages embed.FS

// Page returns the page of a rule by its ID ("DSQL001", any case).
func Page(id string) (string, bool) {
	data, err := pages.ReadFile(strings.ToUpper(strings.TrimSpace(id)) + ".md")
	if err != nil {
		return "", false
	}
	return string(data), true
}
