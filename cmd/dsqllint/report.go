package main

import (
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/txflow"
)

// diag is one diagnostic with the package it was reported for.
type diag struct {
	pkg string // package ID; sqlPackage in plain SQL mode
	analysis.Diagnostic
}

// result is what one run found, in either mode: the input of every output
// format, the baseline and -fix.
type result struct {
	fset *token.FileSet
	// fixesApplied counts the fixes -fix applied, fixesLeft those it left
	// because they overlap another.
	fixesApplied, fixesLeft int
	analyzer                string
	root                    string // what report paths are relative to (repoRoot)
	// diags is every diagnostic in report order. A file shared by a
	// package and its test variant is reported under both; the JSON tree
	// keeps both, the other formats show one.
	diags []diag
	errs  map[string]error // analysis errors by package ID
	// with -baseline: the findings it accounts for, and how many it
	// records that no longer occur.
	baselined bool
	known     []*finding
	stale     int
	// decisions are DSQL005's judgements of every lock (-why).
	decisions []txflow.Decision
	// writes are DSQL003's judgements of every write (-why).
	writes []txflow.WriteVerdict
}

// finding is one distinct diagnostic, located for the report formats.
type finding struct {
	*diag
	rule     *rules.Rule    // nil when the category names no rule
	pos, end token.Position // physical positions (//line directives ignored)
	path     string         // slash path relative to the repository root, or absolute
	key      dedupKey
}

// dedupKey identifies a diagnostic reported more than once: the same
// position, end and rule. A package and its test variant judge the same
// SQL, and may word one finding differently when the test files bring more
// statements to learn from; it is one finding.
type dedupKey struct {
	pos, end token.Position
	category string
}

// findings returns the distinct diagnostics ordered by file and position
// (of one finding worded twice, the first wording in that order).
func (r *result) findings() []*finding {
	all := make([]*finding, 0, len(r.diags))
	for i := range r.diags {
		d := &r.diags[i]
		end := d.End
		if !end.IsValid() {
			end = d.Pos
		}
		f := &finding{diag: d, rule: rules.ByID(d.Category), pos: r.fset.PositionFor(d.Pos, false), end: r.fset.PositionFor(end, false)}
		f.key = dedupKey{f.pos, f.end, d.Category}
		f.path = relPath(r.root, f.pos.Filename)
		all = append(all, f)
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.path != b.path {
			return a.path < b.path
		}
		if a.pos.Offset != b.pos.Offset {
			return a.pos.Offset < b.pos.Offset
		}
		return a.Message < b.Message
	})
	// One finding's copies share a file and an offset, so they sit
	// together in this order: each is looked for among the findings kept
	// at its place only.
	out := all[:0]
	place := 0 // where in out the findings at f's file and offset start
	for _, f := range all {
		if n := len(out); n > 0 && (out[n-1].path != f.path || out[n-1].pos.Offset != f.pos.Offset) {
			place = n
		}
		if !slices.ContainsFunc(out[place:], func(k *finding) bool { return k.key == f.key }) {
			out = append(out, f)
		}
	}
	return out
}

// keep drops every diagnostic that is not one of fs (the findings left
// after the baseline), duplicates included.
func (r *result) keep(fs []*finding) {
	keys := map[dedupKey]bool{}
	for _, f := range fs {
		keys[f.key] = true
	}
	kept := r.diags[:0:0]
	for _, d := range r.diags {
		end := d.End
		if !end.IsValid() {
			end = d.Pos
		}
		if keys[dedupKey{r.fset.PositionFor(d.Pos, false), r.fset.PositionFor(end, false), d.Category}] {
			kept = append(kept, d)
		}
	}
	r.diags = kept
}

// severity is the finding's rule severity; a diagnostic outside the rule
// catalogue counts as a warning.
func (f *finding) severity() rules.Severity {
	if f.rule == nil {
		return rules.Warning
	}
	return f.rule.Severity
}

// ruleID is the finding's rule ID, or its category when that names no rule.
func (f *finding) ruleID() string {
	if f.rule != nil {
		return f.rule.ID
	}
	if f.Category != "" {
		return f.Category
	}
	return "dsqllint"
}

// failLevel is the -fail-on flag.
type failLevel rules.Severity

func (l *failLevel) String() string { return rules.Severity(*l).String() }

func (l *failLevel) Set(v string) error {
	switch v {
	case "warning":
		*l = failLevel(rules.Warning)
	case "error":
		*l = failLevel(rules.Error)
	default:
		return fmt.Errorf("want warning or error, not %q", v)
	}
	return nil
}

// output is one -format entry: a format and where it goes ("" for the
// format's standard stream).
type output struct {
	format, path string
}

var formats = map[string]bool{"text": true, "json": true, "sarif": true, "github": true, "markdown": true}

// parseOutputs parses -format: FORMAT[:FILE] entries separated by commas.
func parseOutputs(s string) ([]output, error) {
	var outs []output
	stdout := ""
	for _, item := range strings.Split(s, ",") {
		name, path, _ := strings.Cut(strings.TrimSpace(item), ":")
		if !formats[name] {
			return nil, fmt.Errorf("-format: unknown format %q (want text, json, sarif, github or markdown)", name)
		}
		if path == "" && name != "text" {
			if stdout != "" {
				return nil, fmt.Errorf("-format: %s and %s both write to standard output; send one to a file (%s:FILE)", stdout, name, name)
			}
			stdout = name
		}
		outs = append(outs, output{name, path})
	}
	return outs, nil
}

// write writes one output.
func (o output) write(r *result, fs []*finding, context int) (err error) {
	var w io.Writer = os.Stdout
	if o.format == "text" {
		w = os.Stderr
	}
	if o.path != "" {
		f, err := os.Create(o.path)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, f.Close()) }()
		w = f
	}
	switch o.format {
	case "text":
		return writeText(w, r, fs, context)
	case "json":
		return writeJSON(w, r)
	case "sarif":
		return writeSARIF(w, r, fs, newSource())
	case "markdown":
		return writeMarkdown(w, r, fs)
	case "github":
		return writeGitHub(w, fs)
	}
	return fmt.Errorf("unknown format %q", o.format)
}

// repoRoot is the directory report paths are relative to: the root of the
// git work tree holding the current directory, else the current directory.
func repoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd
		}
		dir = parent
	}
}

// relPath returns name relative to root with forward slashes, or name
// itself (absolute) when it lies outside root.
func relPath(root, name string) string {
	abs, err := filepath.Abs(name)
	if err != nil || root == "" {
		return filepath.ToSlash(name)
	}
	if rel, ok := within(root, abs); ok {
		return rel
	}
	// A symlinked temporary or home directory: compare real paths.
	realRoot, err1 := filepath.EvalSymlinks(root)
	realAbs, err2 := filepath.EvalSymlinks(abs)
	if err1 == nil && err2 == nil {
		if rel, ok := within(realRoot, realAbs); ok {
			return rel
		}
	}
	return filepath.ToSlash(abs)
}

func within(root, abs string) (string, bool) {
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
