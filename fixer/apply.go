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

// Overlap reports whether an edit of b overlaps one of a (an identical
// edit does not: it is applied once). Insertions at one offset overlap
// unless identical: their order would be a guess.
func Overlap(a, b []Edit) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				continue
			}
			if x.Start < y.End && y.Start < x.End || x.Start == y.Start {
				return true
			}
		}
	}
	return false
}
