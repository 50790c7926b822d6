package main

import (
	"bytes"
	"fmt"
	"go/format"
	"go/token"
	"os"
	"sort"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/dsqllint/dsqllint/fixer"
)

// applyFixes applies the first suggested fix of every finding, to Go and
// .sql files alike, or with -diff prints exactly what it would write. A
// fix whose edits overlap those of a fix taken before it (in the order of
// the findings) is left: left counts them; applied counts the fixes taken.
func applyFixes(fset *token.FileSet, fs []*finding, diff bool) (code, applied, left int) {
	byFile := map[string][]fixer.Edit{}
	for _, f := range fs {
		if len(f.SuggestedFixes) == 0 {
			continue
		}
		edits := map[string][]fixer.Edit{}
		for _, e := range f.SuggestedFixes[0].TextEdits {
			tf := fset.File(e.Pos)
			edits[tf.Name()] = append(edits[tf.Name()], fixer.Edit{Start: tf.Offset(e.Pos), End: tf.Offset(e.End), New: string(e.NewText)})
		}
		overlaps := false
		for name, es := range edits {
			overlaps = overlaps || fixer.Overlap(byFile[name], es)
		}
		if overlaps {
			left++
			continue
		}
		for name, es := range edits {
			byFile[name] = append(byFile[name], es...)
		}
		applied++
	}
	names := make([]string, 0, len(byFile))
	for name := range byFile {
		names = append(names, name)
	}
	sort.Strings(names)
	code = exitClean
	for _, name := range names {
		content, err := os.ReadFile(name)
		var fixed []byte
		if err == nil {
			fixed, err = fixedContent(name, content, byFile[name])
		}
		switch {
		case err != nil:
			fmt.Fprintf(os.Stderr, "dsqllint: fixing %s: %v\n", shortPath(name), err)
			code = exitFailure
		case diff:
			label := shortPath(name)
			fmt.Print(udiff.Unified(label, label, string(content), string(fixed)))
		default:
			if err := writeSameMode(name, fixed); err != nil {
				fmt.Fprintf(os.Stderr, "dsqllint: fixing %s: %v\n", shortPath(name), err)
				code = exitFailure
			}
		}
	}
	return code, applied, left
}

// fixedContent is a file's content with the edits applied. A Go file
// that was gofmt-formatted stays so (an import the fix adds is sorted
// into its group, a const block realigned); one that no longer parses is
// not written.
func fixedContent(name string, content []byte, edits []fixer.Edit) ([]byte, error) {
	fixed, err := fixer.Apply(content, edits)
	if err != nil || !strings.HasSuffix(name, ".go") {
		return fixed, err
	}
	formatted, err := format.Source(fixed)
	if err != nil {
		return nil, fmt.Errorf("the fixed file would not parse, left as it is: %v", err)
	}
	if was, err := format.Source(content); err == nil && bytes.Equal(was, content) {
		return formatted, nil
	}
	return fixed, nil // not gofmt-formatted before: change only what the fixes change
}
