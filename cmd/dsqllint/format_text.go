package main

import (
	"bufio"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// writeText prints findings the way go vet and x/tools drivers do,
// `file:line:col: message`, with -c lines of context around each.
func writeText(w io.Writer, r *result, fs []*finding, context int) error {
	bw := bufio.NewWriter(w)
	for _, f := range fs {
		printPlain(bw, r.fset, context, f.Pos, f.End, f.Message)
		for _, rel := range f.Related {
			printPlain(bw, r.fset, context, rel.Pos, rel.End, "\t"+rel.Message)
		}
	}
	return bw.Flush()
}

func printPlain(w io.Writer, fset *token.FileSet, context int, pos, end token.Pos, message string) {
	posn := fset.Position(pos)
	fmt.Fprintf(w, "%s:%d:%d: %s\n", shortPath(posn.Filename), posn.Line, posn.Column, message)
	if context < 0 {
		return
	}
	endPosn := fset.Position(end)
	if !endPosn.IsValid() {
		endPosn = posn
	}
	data, _ := os.ReadFile(posn.Filename)
	lines := strings.Split(string(data), "\n")
	for i := posn.Line - context; i <= endPosn.Line+context; i++ {
		if 1 <= i && i <= len(lines) {
			fmt.Fprintf(w, "%d\t%s\n", i, lines[i-1])
		}
	}
}

// workingDir is asked once: every finding's file name is made relative to
// it (os.Getwd stats "." and $PWD each time).
var workingDir = sync.OnceValues(os.Getwd)

// shortPath names a file the way go vet does: relative to the working
// directory when that is shorter ("./x.go" for a file in it, "pkg/x.go",
// "../x.go"), absolute otherwise.
func shortPath(name string) string {
	wd, err := workingDir()
	if err != nil || !filepath.IsAbs(name) {
		return name
	}
	rel, err := filepath.Rel(wd, name)
	if err != nil || len(rel) >= len(name) {
		return name
	}
	if filepath.Dir(rel) == "." {
		return "." + string(filepath.Separator) + rel
	}
	return rel
}
