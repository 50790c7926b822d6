package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
)

// The x/tools JSON tree, {package ID: {analyzer: [diagnostic] | {"error": msg}}},
// as go vet -json and x/tools drivers print it. The types mirror
// golang.org/x/tools/internal/analysis/driverutil, which is internal.

type jsonTextEdit struct {
	Filename string `json:"filename"`
	Start    int    `json:"start"`
	End      int    `json:"end"`
	New      string `json:"new"`
}

type jsonSuggestedFix struct {
	Message string         `json:"message"`
	Edits   []jsonTextEdit `json:"edits"`
}

type jsonRelated struct {
	Posn    string `json:"posn"`
	End     string `json:"end"`
	Message string `json:"message"`
}

type jsonDiagnostic struct {
	Category       string             `json:"category,omitempty"`
	Posn           string             `json:"posn"`
	End            string             `json:"end"`
	Message        string             `json:"message"`
	SuggestedFixes []jsonSuggestedFix `json:"suggested_fixes,omitempty"`
	Related        []jsonRelated      `json:"related,omitempty"`
}

type jsonError struct {
	Err string `json:"error"`
}

// writeJSON writes every diagnostic of r (duplicates under each package
// that reported them, as x/tools does) and every analysis error.
func writeJSON(w io.Writer, r *result) error {
	tree := map[string]map[string]any{}
	// By place: the module stage's findings come in the order of token
	// positions, which parallel loading makes differ from run to run.
	diags := slices.Clone(r.diags)
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := r.fset.Position(diags[i].Pos), r.fset.Position(diags[j].Pos)
		return a.Filename < b.Filename || a.Filename == b.Filename && a.Offset < b.Offset
	})
	lists := map[string][]jsonDiagnostic{}
	for _, d := range diags {
		if _, failed := r.errs[d.pkg]; failed {
			continue
		}
		lists[d.pkg] = append(lists[d.pkg], r.jsonDiagnostic(d))
	}
	for pkg, list := range lists {
		tree[pkg] = map[string]any{r.analyzer: list}
	}
	for pkg, err := range r.errs {
		tree[pkg] = map[string]any{r.analyzer: jsonError{err.Error()}}
	}
	data, err := json.MarshalIndent(tree, "", "\t")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

func (r *result) jsonDiagnostic(d diag) jsonDiagnostic {
	fset := r.fset
	jd := jsonDiagnostic{
		Category: d.Category,
		Posn:     fset.Position(d.Pos).String(),
		End:      fset.Position(cmp.Or(d.End, d.Pos)).String(),
		Message:  d.Message,
	}
	for _, fix := range d.SuggestedFixes {
		var edits []jsonTextEdit
		for _, e := range fix.TextEdits {
			edits = append(edits, jsonTextEdit{
				Filename: fset.Position(e.Pos).Filename,
				Start:    fset.Position(e.Pos).Offset,
				End:      fset.Position(e.End).Offset,
				New:      string(e.NewText),
			})
		}
		jd.SuggestedFixes = append(jd.SuggestedFixes, jsonSuggestedFix{Message: fix.Message, Edits: edits})
	}
	for _, rel := range d.Related {
		jd.Related = append(jd.Related, jsonRelated{
			Posn:    fset.Position(rel.Pos).String(),
			End:     fset.Position(cmp.Or(rel.End, rel.Pos)).String(),
			Message: rel.Message,
		})
	}
	return jd
}
