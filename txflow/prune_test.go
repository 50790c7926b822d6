package txflow

import (
	"slices"
	"testing"
)

// TestFactsCarryOnlyWhatLeadsSomewhere: what a fact sends of a summary
// keeps every call on a chain from a lock up to its callers — through
// another package's function, a function parameter, an interface method
// an importer may implement — and drops the calls that lead nowhere: a
// helper that does nothing the join judges, a function of a package with
// no summary.
func TestFactsCarryOnlyWhatLeadsSomewhere(t *testing.T) {
	fset, svcFile, storeFile := files()
	hop := func(own *Summary, below ...*Fact) *Fact {
		carried := []*Carried{Carry(fset, own)}
		for _, f := range below {
			carried = append(carried, f.Carried()...)
		}
		data, err := NewFact(carried).GobEncode()
		if err != nil {
			t.Fatal(err)
		}
		var got Fact
		if err := got.GobDecode(data); err != nil {
			t.Fatal(err)
		}
		return &got
	}
	store := hop(&Summary{Pkg: "app/store",
		Stmts: []ParamStmt{{Func: "app/store.Claim", Param: 1, Pos: storeFile.Pos(10), Lock: true}},
		Calls: []Call{
			{From: "app/store.Claim", Callee: "app/store.trace", Pos: storeFile.Pos(20)},
			{From: "app/store.Sweep", Callee: "app/store.trace", Pos: storeFile.Pos(30)},
			{From: "app/store.trace", Callee: "app/store.format", Pos: storeFile.Pos(40)},
		}})
	mid := hop(&Summary{Pkg: "app/mid", Calls: []Call{
		{From: "app/mid.Do", Callee: "app/mid.Do#1", Pos: svcFile.Pos(10)},       // runs what it is handed
		{From: "app/mid.Claim", Callee: "app/store.Claim", Pos: svcFile.Pos(20)}, // a lock below
		{From: "app/mid.Sweep", Callee: "app/store.Sweep", Pos: svcFile.Pos(30)}, // nothing below
	}}, store)
	svc := hop(&Summary{Pkg: "app/svc",
		Calls: []Call{
			{From: "app/svc.Run", Callee: "app/mid.Do", Pos: svcFile.Pos(100)},
			{From: "app/svc.claim", Callee: "app/mid.Claim", Pos: svcFile.Pos(110)},
			{From: "app/svc.Run", Callee: "(app/log.Logger).Info", Pos: svcFile.Pos(120), Dynamic: true},
			{From: "app/svc.Run", Callee: "app/mid.Sweep", Pos: svcFile.Pos(130)},
			{From: "app/svc.Run", Callee: "app/util.Leaf", Pos: svcFile.Pos(140)}, // util has no summary
		},
		Closures: []Closure{{From: "app/svc.Run", Callee: "app/mid.Do", Arg: 1, Fn: "app/svc.claim", Pos: svcFile.Pos(100)}},
	}, mid)

	calls := func(f *Fact, pkg string) []string {
		for _, c := range f.Carried() {
			if c.Pkg == pkg {
				var out []string
				for _, x := range c.Summary(fset).Calls {
					out = append(out, x.From+" → "+x.Callee)
				}
				return out
			}
		}
		t.Fatalf("%s not carried", pkg)
		return nil
	}
	want := map[string][]string{
		"app/store": nil, // trace and format do nothing the join judges
		"app/mid":   {"app/mid.Do → app/mid.Do#1", "app/mid.Claim → app/store.Claim"},
		"app/svc":   {"app/svc.Run → app/mid.Do", "app/svc.claim → app/mid.Claim", "app/svc.Run → (app/log.Logger).Info"},
	}
	for pkg, w := range want {
		if got := calls(svc, pkg); !slices.Equal(got, w) {
			t.Errorf("%s sends calls %q, want %q", pkg, got, w)
		}
	}
	for _, c := range svc.Carried() {
		if c.Pkg == "app/svc" && len(c.Summary(fset).Closures) != 1 {
			t.Errorf("svc's closure handed to mid.Do, which runs a lock, was dropped")
		}
	}
}
