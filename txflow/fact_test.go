package txflow

import (
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// TestFactAcrossProcesses: a fact sent to another process (go vet) comes
// back with every position on its file and line, and a package that
// carries an import's summaries on sends them as they came, without
// decoding them.
func TestFactAcrossProcesses(t *testing.T) {
	fset, _, store := files()
	lockAt := store.Pos(205) // store.go:3:6
	lock := &Summary{Pkg: "example.com/store", Module: "example.com",
		Stmts: []ParamStmt{{Func: "example.com/store.Claim", Param: 1, Pos: lockAt, End: lockAt + 10, Lock: true}},
		Locks: []LockSite{{Pos: lockAt, End: lockAt + 10, What: "SELECT ... FOR UPDATE"}}}
	send := func(f *Fact) []byte {
		data, err := f.GobEncode()
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	receive := func(data []byte) *Fact {
		var f Fact
		if err := f.GobDecode(data); err != nil {
			t.Fatal(err)
		}
		return &f
	}

	// The store's own process sends its summary; the service's process
	// carries it on with its own, reading neither.
	fromStore := receive(send(NewFact([]*Carried{Carry(fset, lock)})))
	svcFset, svc, _ := files()
	callAt := svc.Pos(310) // service.go:4:11
	own := &Summary{Pkg: "example.com/service", Module: "example.com",
		Calls: []Call{{From: "example.com/service.Run", Callee: "example.com/store.Claim", Pos: callAt}}}
	carried := append([]*Carried{Carry(svcFset, own)}, fromStore.Carried()...)
	fromService := receive(send(NewFact(carried)))
	if fromStore.Carried()[0].sum != nil {
		t.Errorf("carrying the store's summary on decoded it")
	}

	// A third process reads both, from two facts that carry the store's.
	mainFset := token.NewFileSet()
	again := receive(send(NewFact(fromStore.Carried())))
	got := map[string]*Summary{}
	for _, f := range []*Fact{fromService, again} {
		for _, c := range f.Carried() {
			if got[c.Pkg] == nil {
				got[c.Pkg] = c.Summary(mainFset)
			}
		}
	}
	if s := got["example.com/store"]; s == nil || len(s.Locks) != 1 || mainFset.Position(s.Locks[0].Pos).String() != "store/store.go:3:6" {
		t.Fatalf("store's lock after two hops: %+v", s)
	} else if s.Stmts[0].End-s.Stmts[0].Pos != 10 {
		t.Errorf("store's statement spans %d bytes, want 10", s.Stmts[0].End-s.Stmts[0].Pos)
	}
	if s := got["example.com/service"]; s == nil || len(s.Calls) != 1 || mainFset.Position(s.Calls[0].Pos).String() != "service/service.go:4:11" {
		t.Errorf("service's call: %+v", s)
	}
	if got, want := fromService.String(), "txflow(service{calls:1}; store{stmts:1 locks:1})"; got != want {
		t.Errorf("String = %s, want %s", got, want)
	}
}

// TestFactNamesClosuresApart: a function literal is named by its
// position in the process that made the summary, and every go vet
// process numbers its files from 1. Two packages' closures at the same
// offset must stay two closures in the importer, each named where it is.
func TestFactNamesClosuresApart(t *testing.T) {
	importer := token.NewFileSet()
	hop := func(pkg, file string) *Summary {
		fset := token.NewFileSet()
		f := addFile(fset, file)
		lit := "func@" + strconv.Itoa(int(f.Pos(120))) // the same number in both processes
		s := &Summary{Pkg: pkg,
			Calls:    []Call{{From: lit, Callee: pkg + ".Lock", Pos: f.Pos(130)}, {From: pkg + ".Run", Callee: ParamKey(lit, 0), Pos: f.Pos(140)}},
			Closures: []Closure{{From: pkg + ".Run", Callee: pkg + ".Do", Arg: 1, Fn: lit, Pos: f.Pos(110)}},
			Stmts:    []ParamStmt{{Func: pkg + ".Lock", Param: 0, Pos: f.Pos(10), Lock: true}}}
		data, err := NewFact([]*Carried{Carry(fset, s)}).GobEncode()
		if err != nil {
			t.Fatal(err)
		}
		var got Fact
		if err := got.GobDecode(data); err != nil {
			t.Fatal(err)
		}
		return got.Carried()[0].Summary(importer)
	}
	a, b := hop("example.com/a", "a/a.go"), hop("example.com/b", "b/b.go")
	if a.Calls[0].From == b.Calls[0].From {
		t.Fatalf("both closures are named %s in the importer", a.Calls[0].From)
	}
	for _, s := range []*Summary{a, b} {
		lit := s.Calls[0].From
		if s.Closures[0].Fn != lit || s.Calls[1].Callee != ParamKey(lit, 0) {
			t.Errorf("%s: the closure's names disagree: call from %s, closure %s, parameter %s", s.Pkg, lit, s.Closures[0].Fn, s.Calls[1].Callee)
		}
		p, _, _ := litKey(lit)
		if got, want := importer.Position(p).String(), strings.TrimPrefix(s.Pkg, "example.com/")+"/"+strings.TrimPrefix(s.Pkg, "example.com/")+".go:2:21"; got != want {
			t.Errorf("%s: the closure is at %s, want %s", s.Pkg, got, want)
		}
	}
}
