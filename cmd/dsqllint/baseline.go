package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// A baseline records the findings a repository has today so that a CI gate
// reports only new ones. A finding is keyed by its rule, its
// repository-relative file and a hash of the statement around it, never by
// line numbers: edits elsewhere in the file leave the key alone, while
// touching the statement itself makes the finding new again. Identical
// keys (the same statement twice in a file) are counted.

const baselineVersion = 1

type baselineFile struct {
	Version  int             `json:"version"`
	Tool     string          `json:"tool"`
	Findings []baselineEntry `json:"findings"`
}

type baselineEntry struct {
	Rule  string `json:"rule"`
	File  string `json:"file"`
	Hash  string `json:"hash"`
	Count int    `json:"count"`
	// Message is the first finding's message, for people reviewing the
	// baseline; matching ignores it.
	Message string `json:"message,omitempty"`
}

type baselineKey struct {
	rule, file, hash string
}

func keyOf(f *finding, src *source) baselineKey {
	return baselineKey{f.ruleID(), f.path, statementHash(src, f)}
}

// writeBaseline records fs in the file name.
func writeBaseline(name string, fs []*finding) error {
	src := newSource()
	entries := map[baselineKey]*baselineEntry{}
	for _, f := range fs {
		k := keyOf(f, src)
		if e := entries[k]; e != nil {
			e.Count++
			continue
		}
		entries[k] = &baselineEntry{Rule: k.rule, File: k.file, Hash: k.hash, Count: 1, Message: f.Message}
	}
	b := baselineFile{Version: baselineVersion, Tool: "dsqllint", Findings: []baselineEntry{}}
	for _, e := range entries {
		b.Findings = append(b.Findings, *e)
	}
	sort.Slice(b.Findings, func(i, j int) bool {
		x, y := b.Findings[i], b.Findings[j]
		if x.File != y.File {
			return x.File < y.File
		}
		if x.Rule != y.Rule {
			return x.Rule < y.Rule
		}
		return x.Hash < y.Hash
	})
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(b); err != nil {
		return err
	}
	return os.WriteFile(name, buf.Bytes(), 0o644)
}

// baseline is a read baseline: how many findings each key may still match.
type baseline map[baselineKey]int

func readBaseline(name string) (baseline, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var b baselineFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("baseline %s: %v", name, err)
	}
	if b.Version != baselineVersion {
		return nil, fmt.Errorf("baseline %s: version %d, want %d (rewrite it with -write-baseline)", name, b.Version, baselineVersion)
	}
	m := baseline{}
	for _, e := range b.Findings {
		m[baselineKey{e.Rule, e.File, e.Hash}] += e.Count
	}
	return m, nil
}

// filter returns the findings the baseline does not account for, how many
// it did, and how many recorded findings no longer occur.
func (b baseline) filter(fs []*finding) (fresh, known []*finding, stale int) {
	left := map[baselineKey]int{}
	for k, n := range b {
		left[k] = n
	}
	src := newSource()
	for _, f := range fs {
		k := keyOf(f, src)
		if left[k] > 0 {
			left[k]--
			known = append(known, f)
			continue
		}
		fresh = append(fresh, f)
	}
	for _, n := range left {
		stale += n
	}
	return fresh, known, stale
}

// statementHash hashes what identifies a finding regardless of where the
// file's lines fall: its rule, the text of the statement around it and the
// text it points at, with whitespace runs collapsed (so that gofmt
// re-aligning a const block changes nothing).
func statementHash(src *source, f *finding) string {
	data := src.content(f.pos.Filename)
	start, end := f.pos.Offset, f.end.Offset
	if data == nil || start < 0 || end < start || end > len(data) {
		sum := sha256.Sum256([]byte(f.ruleID() + "\x00" + collapse(f.Message)))
		return hex.EncodeToString(sum[:8])
	}
	var context string
	if strings.HasSuffix(f.pos.Filename, ".go") {
		context = src.goStatement(f.pos.Filename, start, end)
	} else {
		context = src.sqlStatement(f.pos.Filename, start)
	}
	if context == "" {
		context = lines(data, start, end)
	}
	sum := sha256.Sum256([]byte(f.ruleID() + "\x00" + collapse(context) + "\x00" + collapse(string(data[start:end]))))
	return hex.EncodeToString(sum[:8])
}

// goStatement returns the source of the innermost simple statement,
// declaration spec or composite-literal element holding [start, end) in a
// Go file, or "" when there is none (a comment between statements).
func (s *source) goStatement(name string, start, end int) string {
	data := s.content(name)
	file, ok := s.goFiles[name]
	if !ok {
		file, _ = parser.ParseFile(token.NewFileSet(), "", data, parser.SkipObjectResolution)
		s.goFiles[name] = file
	}
	if file == nil {
		return ""
	}
	base := file.FileStart // the token.Pos of offset 0
	path, _ := astutil.PathEnclosingInterval(file, base+token.Pos(start), base+token.Pos(end))
	for i, n := range path {
		switch n.(type) {
		case *ast.ExprStmt, *ast.AssignStmt, *ast.ReturnStmt, *ast.DeclStmt, *ast.DeferStmt,
			*ast.GoStmt, *ast.SendStmt, *ast.ValueSpec, *ast.KeyValueExpr:
		default:
			if i+1 >= len(path) {
				continue
			}
			if _, ok := path[i+1].(*ast.CompositeLit); !ok {
				continue // an element of a composite literal stands alone
			}
		}
		return string(data[n.Pos()-base : n.End()-base])
	}
	return ""
}

// sqlStatement returns the text of the SQL statement holding offset in a
// .sql file, or "" when the offset is outside every statement.
func (s *source) sqlStatement(name string, offset int) string {
	data := s.content(name)
	script, ok := s.sqlFiles[name]
	if !ok {
		script = sqlparse.Parse(string(data))
		s.sqlFiles[name] = script
	}
	for _, st := range script.Stmts {
		if st.Span.Start <= offset && offset < st.Span.End {
			return string(data[st.Span.Start:st.Span.End])
		}
	}
	return ""
}

// lines returns the whole lines holding [start, end).
func lines(data []byte, start, end int) string {
	from := bytes.LastIndexByte(data[:start], '\n') + 1
	to := len(data)
	if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
		to = end + i
	}
	return string(data[from:to])
}

// collapse replaces every run of white space by one space.
func collapse(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
