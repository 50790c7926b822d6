package fixer

import (
	"fmt"
	"sort"
	"strings"
)

// Edit is a byte-offset replacement in one file's content.
type Edit struct {
	Start, End int
	New        string
}

// Apply applies non-overlapping edits to content. Identical duplicate
// edits are applied once; overlapping ones are an error.
func Apply(content []byte, edits []Edit) ([]byte, error) {
	edits = sortedUnique(edits)
	var b strings.Builder
	last := 0
	for _, e := range edits {
		if e.Start < last || e.End < e.Start || e.End > len(content) {
			return nil, fmt.Errorf("edits overlap or fall outside the file at byte %d", e.Start)
		}
		b.Write(content[last:e.Start])
		b.WriteString(e.New)
		last = e.End
	}
	b.Write(content[last:])
	return []byte(b.String()), nil
}

func sortedUnique(edits []Edit) []Edit {
	out := append([]Edit(nil), edits...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	uniq := out[:0]
	for i, e := range out {
		if i > 0 && e == out[i-1] {
			continue
		}
		uniq = append(uniq, e)
	}
	return uniq
}

// Diff returns a unified diff of applying edits to content, with three
// lines of context around each group of changed lines.
func Diff(name string, content []byte, edits []Edit) (string, error) {
	edits = sortedUnique(edits)
	if len(edits) == 0 {
		return "", nil
	}
	text := string(content)
	lineStart := []int{0}
	for i, c := range text {
		if c == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	lineOf := func(off int) int { return sort.SearchInts(lineStart, off+1) - 1 }
	lineEnd := func(l int) int {
		if l+1 < len(lineStart) {
			return lineStart[l+1]
		}
		return len(text)
	}
	// Group edits whose changed lines lie within 6 lines of each other.
	type group struct {
		first, last int // changed lines, 0-based
		edits       []Edit
	}
	var groups []*group
	for _, e := range edits {
		f, l := lineOf(e.Start), lineOf(e.End)
		if n := len(groups); n > 0 && f-groups[n-1].last <= 6 {
			g := groups[n-1]
			g.last = max(g.last, l)
			g.edits = append(g.edits, e)
			continue
		}
		groups = append(groups, &group{f, l, []Edit{e}})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", name, name)
	shift := 0 // lines added so far
	for _, g := range groups {
		from, to := max(g.first-3, 0), min(g.last+3, len(lineStart)-1)
		if lineStart[to] == len(text) && to > g.last {
			to-- // no empty last line after a final newline
		}
		oldChanged := text[lineStart[g.first]:lineEnd(g.last)]
		var rel []Edit
		for _, e := range g.edits {
			rel = append(rel, Edit{e.Start - lineStart[g.first], e.End - lineStart[g.first], e.New})
		}
		newChanged, err := Apply([]byte(oldChanged), rel)
		if err != nil {
			return "", err
		}
		oldLines := splitLines(oldChanged)
		newLines := splitLines(string(newChanged))
		before := splitLines(text[lineStart[from]:lineStart[g.first]])
		after := splitLines(text[lineEnd(g.last):lineEnd(to)])
		oldN := len(before) + len(oldLines) + len(after)
		newN := len(before) + len(newLines) + len(after)
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", from+1, oldN, from+1+shift, newN)
		for _, l := range before {
			b.WriteString(" " + l)
		}
		for _, l := range oldLines {
			b.WriteString("-" + l)
		}
		for _, l := range newLines {
			b.WriteString("+" + l)
		}
		for _, l := range after {
			b.WriteString(" " + l)
		}
		shift += len(newLines) - len(oldLines)
	}
	return b.String(), nil
}

// splitLines splits s after each newline; a last line without one gets
// one, with the marker diff tools use.
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s+"\n\\ No newline at end of file\n")
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
