package dsqlcheck

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/dsqllint/dsqllint/rules"
)

// The reports have the shapes of the dsqllint command's -format=json
// (the x/tools JSON tree, keyed by the calling package) and -format=sarif,
// so that CI can upload static and run-time findings together. A
// finding's position is the caller's line; its message ends with the
// statement as executed.

type jsonDiagnostic struct {
	Category string `json:"category"`
	Posn     string `json:"posn"`
	End      string `json:"end"`
	Message  string `json:"message"`
}

// WriteJSON writes the findings as the x/tools JSON tree:
// {package: {"dsqllint": [diagnostic]}}.
func (c *Checker) WriteJSON(w io.Writer) error {
	tree := map[string]map[string][]jsonDiagnostic{}
	for _, f := range c.Findings() {
		pkg := f.pkg
		if pkg == "" {
			pkg = "dsqlcheck"
		}
		if tree[pkg] == nil {
			tree[pkg] = map[string][]jsonDiagnostic{}
		}
		posn := "" // a statement seen on the wire has no caller
		if f.file != "" {
			posn = fmt.Sprintf("%s:%d:1", f.file, f.line)
		}
		tree[pkg]["dsqllint"] = append(tree[pkg]["dsqllint"], jsonDiagnostic{Category: f.Rule, Posn: posn, End: posn, Message: f.Message + "\n\t" + f.SQL})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "\t")
	return enc.Encode(tree)
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	Name             string       `json:"name"`
	ShortDescription sarifMessage `json:"shortDescription"`
	HelpURI          string       `json:"helpUri"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// WriteSARIF writes the findings as SARIF 2.1.0, with file paths
// relative to root (the repository's root, as the dsqllint command
// writes them) when they lie inside it.
func (c *Checker) WriteSARIF(w io.Writer, root string) error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "dsqllint", InformationURI: "https://github.com/dsqllint/dsqllint"}}, Results: []sarifResult{}}
	seen := map[string]bool{}
	for _, f := range c.Findings() {
		r := rules.ByID(f.Rule)
		if r == nil {
			continue
		}
		if !seen[r.ID] {
			seen[r.ID] = true
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: r.ID, Name: r.Name, ShortDescription: sarifMessage{r.Summary}, HelpURI: r.DocURL()})
		}
		uri := filepath.ToSlash(f.file)
		if rel, err := filepath.Rel(root, f.file); root != "" && err == nil && !strings.HasPrefix(rel, "..") {
			uri = filepath.ToSlash(rel)
		}
		res := sarifResult{RuleID: r.ID, Level: r.Severity.String(), Message: sarifMessage{f.Message + "\n" + f.SQL}}
		if f.file != "" { // a statement seen on the wire has no caller
			res.Locations = []sarifLocation{{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri}, Region: sarifRegion{StartLine: f.line}}}}
		}
		run.Results = append(run.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}})
}
