package sqlparse

import "sort"

// OffsetMap maps byte offsets in normalised text back to the source text it
// was derived from. It records the replaced segments in order; offsets
// outside a replaced segment shift by the accumulated length difference.
type OffsetMap struct {
	segs []segment
}

type segment struct {
	norm, normLen int // replacement in normalised text
	src, srcLen   int // original bytes in the source
}

func (m *OffsetMap) add(norm, normLen, src, srcLen int) {
	m.segs = append(m.segs, segment{norm, normLen, src, srcLen})
}

// ToSource maps an offset in the normalised text to the source. An offset
// inside a replacement maps to the start of the replaced source bytes, or
// to their end when it is the replacement's end.
func (m *OffsetMap) ToSource(off int) int {
	if m == nil || len(m.segs) == 0 {
		return off
	}
	i := sort.Search(len(m.segs), func(i int) bool { return m.segs[i].norm > off }) - 1
	if i < 0 {
		return off
	}
	s := m.segs[i]
	if off == s.norm {
		return s.src
	}
	if off < s.norm+s.normLen {
		return s.src
	}
	return off - (s.norm + s.normLen) + (s.src + s.srcLen)
}

// ToNorm maps a source offset to the normalised text: the inverse of
// ToSource for offsets outside replaced segments.
func (m *OffsetMap) ToNorm(off int) int {
	if m == nil || len(m.segs) == 0 {
		return off
	}
	i := sort.Search(len(m.segs), func(i int) bool { return m.segs[i].src > off }) - 1
	if i < 0 {
		return off
	}
	s := m.segs[i]
	if off < s.src+s.srcLen {
		return s.norm
	}
	return off - (s.src + s.srcLen) + (s.norm + s.normLen)
}
