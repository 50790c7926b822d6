package growbuf

import "testing"

func TestKeep(t *testing.T) {
	var p Pool[*int]
	s := p.Get()
	one, two := new(int), new(int)
	s = append(s, one, two, one)
	kept := p.Keep(s)
	if len(kept) != 3 || cap(kept) != 3 || kept[0] != one || kept[1] != two || kept[2] != one {
		t.Fatalf("kept %v (cap %d), want the three entries at their exact size", kept, cap(kept))
	}
	if s[:3][0] != nil {
		t.Errorf("the lent array still points at the keeper's entries")
	}
	kept[0] = two
	if s[:1][0] == two {
		t.Errorf("the kept copy shares the lent array")
	}
}

func TestKeepEmpty(t *testing.T) {
	var p Pool[int]
	if kept := p.Keep(p.Get()); kept != nil {
		t.Errorf("kept %v, want nil for an empty slice", kept)
	}
	if kept := p.Keep(make([]int, 0, 8)); kept != nil {
		t.Errorf("kept %v, want nil for an empty slice with capacity", kept)
	}
}
