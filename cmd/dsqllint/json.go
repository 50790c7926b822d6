package main

import (
	"encoding/json"
	"fmt"
	"go/token"
	"io"

	"golang.org/x/tools/go/analysis"
)

type jsonDiagnostic struct {
	Category string `json:"category,omitempty"`
	Posn     string `json:"posn"`
	End      string `json:"end"`
	Message  string `json:"message"`
}

// printJSON writes the x/tools JSON tree: {package: {analyzer: [diagnostics]}}.
func printJSON(w io.Writer, fset *token.FileSet, name string, diags []analysis.Diagnostic) {
	list := make([]jsonDiagnostic, 0, len(diags))
	for _, d := range diags {
		end := d.End
		if !end.IsValid() {
			end = d.Pos
		}
		list = append(list, jsonDiagnostic{Category: d.Category, Posn: fset.Position(d.Pos).String(), End: fset.Position(end).String(), Message: d.Message})
	}
	tree := map[string]map[string]any{}
	if len(list) > 0 {
		tree["sqlfiles"] = map[string]any{name: list}
	}
	out, _ := json.MarshalIndent(tree, "", "\t")
	fmt.Fprintf(w, "%s\n", out)
}
