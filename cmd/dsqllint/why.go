package main

import (
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// whyAt is a -why argument: FILE:LINE.
type whyAt struct {
	file string // as given, cleaned
	abs  string
	line int
}

func parseWhy(s string) (whyAt, error) {
	i := strings.LastIndexByte(s, ':')
	line, err := strconv.Atoi(s[i+1:])
	if i <= 0 || err != nil || line <= 0 {
		return whyAt{}, fmt.Errorf("-why %q: want FILE:LINE", s)
	}
	at := whyAt{file: filepath.Clean(s[:i]), line: line}
	at.abs, _ = filepath.Abs(at.file)
	return at, nil
}

// matches reports whether a position falls on the line asked about: the
// same file, named from the working directory or by a path suffix.
func (at whyAt) matches(name string, line int) bool {
	if line != at.line {
		return false
	}
	return name == at.abs || strings.HasSuffix(filepath.ToSlash(name), "/"+filepath.ToSlash(at.file))
}

// loaded reports whether the file asked about is one the run loaded.
func (at whyAt) loaded(fset *token.FileSet) bool {
	found := false
	if fset != nil {
		fset.Iterate(func(f *token.File) bool {
			found = at.matches(f.Name(), at.line)
			return !found
		})
	}
	return found
}

// explainLocks prints DSQL005's decision for every lock on the line asked
// about — reported or not — and the chain it followed for each way the
// lock runs. It returns how many it printed.
func explainLocks(w io.Writer, res *result, at whyAt) int {
	wd, _ := os.Getwd()
	n := 0
	for _, d := range res.decisions {
		p := res.fset.Position(d.Pos)
		if !at.matches(p.Filename, p.Line) {
			continue
		}
		verdict := "quiet: every way it runs is shown inside a retry on SQLSTATE 40001"
		if d.Reported {
			verdict = "reported"
		}
		fmt.Fprintf(w, "%s:%d:%d: DSQL005 %s: %s\n", relPath(wd, p.Filename), p.Line, p.Column, d.What, verdict)
		for _, line := range d.Why {
			fmt.Fprintf(w, "  %s\n", line)
		}
		n++
	}
	return n
}

// explainWrites prints DSQL003's verdict for every write whose statement
// spans the line asked about: the finding, or why it was left alone. It
// returns how many it printed.
func explainWrites(w io.Writer, res *result, at whyAt) int {
	wd, _ := os.Getwd()
	n := 0
	said := map[string]bool{} // a package and its test variant judge the same write
	for _, v := range res.writes {
		p, end := res.fset.Position(v.Pos), res.fset.Position(v.End)
		if p.Filename != end.Filename || at.line < p.Line || at.line > end.Line || !at.matches(p.Filename, at.line) {
			continue
		}
		verdict := "quiet: " + v.Why
		if v.Diag != nil {
			verdict = "reported: " + strings.TrimPrefix(v.Diag.Message, "DSQL003 unfenced-write: ")
		}
		line := fmt.Sprintf("%s:%d:%d: DSQL003 %s\n", relPath(wd, p.Filename), p.Line, p.Column, verdict)
		if !said[line] {
			said[line] = true
			fmt.Fprint(w, line)
			n++
		}
	}
	return n
}
