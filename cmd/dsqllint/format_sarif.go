package main

import (
	"encoding/json"
	"go/token"
	"io"
	"net/url"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/dsqllint/dsqllint/rules"
)

// SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/), the
// subset GitHub code scanning reads: one run, every rule in the driver,
// results with exact regions, fixes where dsqllint has one.

const (
	sarifVersion = "2.1.0"
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	// srcRoot is the uriBaseId of repository-relative artifact URIs.
	srcRoot = "%SRCROOT%"
	// fingerprintName keys the line-independent fingerprint of a result,
	// the same statement hash the baseline uses.
	fingerprintName = "dsqllintStatementHash/v1"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool     `json:"tool"`
	ColumnKind string        `json:"columnKind"`
	Results    []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string           `json:"id"`
	Name                 string           `json:"name,omitempty"`
	ShortDescription     sarifText        `json:"shortDescription"`
	HelpURI              string           `json:"helpUri,omitempty"`
	DefaultConfiguration sarifRuleDefault `json:"defaultConfiguration"`
}

type sarifRuleDefault struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifRelated    `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	Fixes               []sarifFix        `json:"fixes,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

// sarifRelated is a related location: where a transaction began, a call
// it went through.
type sarifRelated struct {
	ID               int           `json:"id"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          sarifText     `json:"message"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

type sarifFix struct {
	Description     sarifText             `json:"description"`
	ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
}

type sarifArtifactChange struct {
	ArtifactLocation sarifArtifact      `json:"artifactLocation"`
	Replacements     []sarifReplacement `json:"replacements"`
}

type sarifReplacement struct {
	DeletedRegion   sarifRegion `json:"deletedRegion"`
	InsertedContent sarifText   `json:"insertedContent"`
}

// sarifLevel maps a rule severity to a SARIF level.
func sarifLevel(s rules.Severity) string {
	if s == rules.Error {
		return "error"
	}
	return "warning"
}

// writeSARIF writes one SARIF run with every rule of the catalogue and one
// result per finding.
func writeSARIF(w io.Writer, r *result, fs []*finding, src *source) error {
	driver := sarifDriver{Name: "dsqllint", Version: toolVersion(), InformationURI: "https://github.com/dsqllint/dsqllint"}
	index := map[string]int{}
	addRule := func(rule sarifRule) {
		index[rule.ID] = len(driver.Rules)
		driver.Rules = append(driver.Rules, rule)
	}
	for _, rule := range rules.All() {
		addRule(sarifRule{
			ID:                   rule.ID,
			Name:                 rule.Name,
			ShortDescription:     sarifText{rule.Summary},
			HelpURI:              rule.DocURL(),
			DefaultConfiguration: sarifRuleDefault{sarifLevel(rule.Severity)},
		})
	}
	results := []sarifResult{}
	for _, f := range fs {
		id := f.ruleID()
		if _, ok := index[id]; !ok { // a category outside the catalogue
			addRule(sarifRule{ID: id, ShortDescription: sarifText{id}, DefaultConfiguration: sarifRuleDefault{"warning"}})
		}
		res := sarifResult{
			RuleID:    id,
			RuleIndex: index[id],
			Level:     sarifLevel(f.severity()),
			Message:   sarifText{f.Message},
			Locations: []sarifLocation{{sarifPhysical{
				ArtifactLocation: artifact(f.path),
				Region:           src.region(f.pos, f.end),
			}}},
			PartialFingerprints: map[string]string{fingerprintName: statementHash(src, f)},
		}
		for i, rel := range f.Related {
			p := r.fset.PositionFor(rel.Pos, false)
			res.RelatedLocations = append(res.RelatedLocations, sarifRelated{
				ID:               i + 1,
				PhysicalLocation: sarifPhysical{ArtifactLocation: artifact(relPath(r.root, p.Filename)), Region: src.region(p, p)},
				Message:          sarifText{rel.Message},
			})
		}
		if len(f.SuggestedFixes) > 0 {
			res.Fixes = append(res.Fixes, sarifFixOf(r, f, src))
		}
		results = append(results, res)
	}
	log := sarifLog{
		Schema:  sarifSchema,
		Version: sarifVersion,
		Runs:    []sarifRun{{Tool: sarifTool{driver}, ColumnKind: "utf16CodeUnits", Results: results}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(log)
}

// sarifFixOf renders the finding's fix (dsqllint gives at most one, and
// only the first is ever applied) as SARIF artifact changes, per file.
func sarifFixOf(r *result, f *finding, src *source) sarifFix {
	sf := f.SuggestedFixes[0]
	fix := sarifFix{Description: sarifText{sf.Message}}
	byFile := map[string]*sarifArtifactChange{}
	var order []string
	for _, e := range sf.TextEdits {
		pos, end := r.fset.PositionFor(e.Pos, false), r.fset.PositionFor(e.End, false)
		if !end.IsValid() {
			end = pos
		}
		ch := byFile[pos.Filename]
		if ch == nil {
			ch = &sarifArtifactChange{ArtifactLocation: artifact(relPath(r.root, pos.Filename))}
			byFile[pos.Filename] = ch
			order = append(order, pos.Filename)
		}
		ch.Replacements = append(ch.Replacements, sarifReplacement{
			DeletedRegion:   src.region(pos, end),
			InsertedContent: sarifText{string(e.NewText)},
		})
	}
	sort.Strings(order)
	for _, name := range order {
		fix.ArtifactChanges = append(fix.ArtifactChanges, *byFile[name])
	}
	return fix
}

// region is the SARIF region from pos to end (exclusive), columns in
// UTF-16 code units.
func (s *source) region(pos, end token.Position) sarifRegion {
	return sarifRegion{
		StartLine:   pos.Line,
		StartColumn: s.utf16Column(pos),
		EndLine:     end.Line,
		EndColumn:   s.utf16Column(end),
	}
}

// artifact is the artifact location of a report path: relative to the
// repository root (%SRCROOT%), or a file URI when outside it.
func artifact(path string) sarifArtifact {
	if filepath.IsAbs(filepath.FromSlash(path)) || strings.HasPrefix(path, "/") {
		u := url.URL{Scheme: "file", Path: path}
		if !strings.HasPrefix(path, "/") { // a Windows drive letter
			u.Path = "/" + path
		}
		return sarifArtifact{URI: u.String()}
	}
	return sarifArtifact{URI: (&url.URL{Path: path}).EscapedPath(), URIBaseID: srcRoot}
}

// toolVersion is the module version dsqllint was built from, when known.
func toolVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return ""
}
