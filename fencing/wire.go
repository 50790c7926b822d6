package fencing

import (
	"bytes"
	"encoding/gob"
	"maps"
)

// A package's fences travel with its summary as a fact (txflow.Fact), so
// that a driver that runs one package at a time weighs a write against
// the fences its imports show, as the dsqllint command weighs it against
// the module's. The tables' schema and the package's own Go-declared
// tables stay behind: the importer has its schema, and each usage already
// holds the keys it learned from them.

// The wire holds lists sorted by key, not maps: gob sends a map in its
// iteration order, and a fact's encoding must not change from run to run.

// entry is one entry of a map, sent as part of a sorted list.
type entry[V any] struct {
	K string
	V V
}

func listOf[V any](m map[string]V) []entry[V] {
	out := make([]entry[V], 0, len(m))
	for _, k := range SortedKeys(m) {
		out = append(out, entry[V]{k, m[k]})
	}
	return out
}

func mapOf[V any](l []entry[V]) map[string]V {
	m := make(map[string]V, len(l))
	for _, e := range l {
		m[e.K] = e.V
	}
	return m
}

type wireFences struct {
	Tables           []entry[*wireUsage]
	Filtered, Stated []entry[bool]
}

type wireGuard struct {
	Evidence
	Pins []string
}

type wireLease struct {
	Evidence
	Table  string
	Owners []string
	Timed  bool
	Sets   []string
}

type wireUsage struct {
	CAS, Holders                                                   []entry[[]wireGuard]
	Claims                                                         []entry[[]Evidence]
	Flags, Marks                                                   []entry[bool]
	Expiry, SkipBy, Holds, States, Written, Compared, Keys, Lookup Columns
	Guarded                                                        []entry[[]string]
	Leases                                                         []wireLease
	Skip, Advisory                                                 Evidence
	SkipSets                                                       bool
	PinSets, RowKeys, Uniques                                      [][]string
	Multi                                                          int
	InMulti                                                        []entry[int]
	PK                                                             []string
}

func guardsOut(m map[string][]guard) []entry[[]wireGuard] {
	out := make(map[string][]wireGuard, len(m))
	for k, gs := range m {
		for _, g := range gs {
			out[k] = append(out[k], wireGuard{g.Evidence, g.pins})
		}
	}
	return listOf(out)
}

func guardsIn(l []entry[[]wireGuard]) map[string][]guard {
	out := make(map[string][]guard, len(l))
	for _, e := range l {
		for _, g := range e.V {
			out[e.K] = append(out[e.K], guard{g.Evidence, g.Pins})
		}
	}
	return out
}

// GobEncode sends what the statements showed, table by table.
func (f *Fences) GobEncode() ([]byte, error) {
	w := wireFences{Filtered: listOf(f.Filtered), Stated: listOf(f.stated)}
	for _, name := range SortedKeys(f.Tables) {
		u := f.Tables[name]
		wu := &wireUsage{CAS: guardsOut(u.CAS), Holders: guardsOut(u.Holders), Claims: listOf(u.claims),
			Expiry: u.expiry, SkipBy: u.skipBy, Holds: u.holds, States: u.states,
			Flags: listOf(u.flags), Marks: listOf(u.marks), Written: u.written, Compared: u.Compared,
			Keys: u.keys, Lookup: u.lookup, Guarded: listOf(u.guarded),
			Skip: u.skip, Advisory: u.advisory, SkipSets: u.skipSets, PinSets: u.pinSets, RowKeys: u.rowKeys,
			Uniques: u.uniques, Multi: u.multi, InMulti: listOf(u.inMulti), PK: u.pk}
		for _, l := range u.leases {
			wu.Leases = append(wu.Leases, wireLease{l.Evidence, l.table, l.owners, l.timed, l.sets})
		}
		w.Tables = append(w.Tables, entry[*wireUsage]{name, wu})
	}
	var buf bytes.Buffer
	err := gob.NewEncoder(&buf).Encode(w)
	return buf.Bytes(), err
}

// GobDecode rebuilds what GobEncode sent.
func (f *Fences) GobDecode(data []byte) error {
	var w wireFences
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&w); err != nil {
		return err
	}
	*f = *NewFences()
	maps.Copy(f.Filtered, mapOf(w.Filtered))
	maps.Copy(f.stated, mapOf(w.Stated))
	for _, e := range w.Tables {
		wu := e.V
		u := &Usage{CAS: guardsIn(wu.CAS), Holders: guardsIn(wu.Holders), claims: mapOf(wu.Claims),
			expiry: wu.Expiry, skipBy: wu.SkipBy, holds: wu.Holds, states: wu.States,
			flags: mapOf(wu.Flags), marks: mapOf(wu.Marks), written: wu.Written, Compared: wu.Compared,
			keys: wu.Keys, lookup: wu.Lookup, guarded: mapOf(wu.Guarded), skip: wu.Skip,
			advisory: wu.Advisory, skipSets: wu.SkipSets, pinSets: wu.PinSets, rowKeys: wu.RowKeys, uniques: wu.Uniques,
			multi: wu.Multi, inMulti: mapOf(wu.InMulti), pk: wu.PK}
		for _, l := range wu.Leases {
			u.leases = append(u.leases, leaseUse{l.Evidence, l.Table, l.Owners, l.Timed, l.Sets})
		}
		f.Tables[e.K] = u
	}
	return nil
}

// Shows reports whether the statements showed any fence: a
// compare-and-swap, a claim or its holders, a lease, a SKIP LOCKED or an
// advisory lock. Fences that show none tell another package nothing.
func (f *Fences) Shows() bool {
	if f == nil {
		return false
	}
	for _, u := range f.Tables {
		if len(u.CAS)+len(u.claims)+len(u.Holders)+len(u.leases) > 0 || u.skip.Does != "" || u.advisory.Does != "" {
			return true
		}
	}
	return false
}

// Clone returns a copy of f that shares nothing with it, for a join that
// merges other packages' fences into it.
func (f *Fences) Clone() *Fences {
	if f == nil {
		return nil
	}
	data, err := f.GobEncode()
	c := new(Fences)
	if err != nil || c.GobDecode(data) != nil {
		return NewFences() // (plain data: neither fails)
	}
	c.Local = f.Local
	for name, u := range f.Tables {
		c.Tables[name].schema = u.schema
	}
	return c
}
