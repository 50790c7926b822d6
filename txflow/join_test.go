package txflow

import (
	"go/token"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
)

// files makes a file set with a service and a store file.
func files() (*token.FileSet, *token.File, *token.File) {
	fset := token.NewFileSet()
	return fset, addFile(fset, "service/service.go"), addFile(fset, "store/store.go")
}

// addFile adds a file of 1000 bytes, lines of 100 each.
func addFile(fset *token.FileSet, name string) *token.File {
	f := fset.AddFile(name, -1, 1000)
	f.SetLines([]int{0, 100, 200, 300, 400, 500})
	return f
}

// Summaries written by hand: a service begins a transaction and passes it
// to a store function that locks FOR UPDATE, and calls a function that
// locks on the pool. Join reports the lock at its site, naming the Begin,
// unless the Begin is retried; the pool lock unless its caller retries.
func TestJoin(t *testing.T) {
	fset, svc, store := files()
	lock, single := store.Pos(210), store.Pos(410)
	storeSum := &Summary{Pkg: "example.com/store", Enabled: true,
		Locks: []LockSite{{Pos: lock, End: lock + 10, What: "SELECT ... FOR UPDATE"}, {Pos: single, End: single + 10, What: "SELECT ... FOR UPDATE", Exec: true}},
		Runs: []LockRun{
			{Sites: []token.Pos{lock}, Func: "example.com/store.Lock", Param: 1, Begin: -1, Pos: lock},
			{Sites: []token.Pos{single}, Func: "example.com/store.Fetch", Param: NoHandle, Begin: -1, Pool: true, Pos: single},
		},
	}
	service := func(retried bool) *Summary {
		s := &Summary{Pkg: "example.com/service", Enabled: true,
			Begins: []Begin{{Func: "example.com/service.Handle", Pos: svc.Pos(110), Retried: retried}},
			Passes: []Pass{{From: "example.com/service.Handle", Param: NoHandle, Begin: 0, Callee: "example.com/store.Lock", Arg: 1, Pos: svc.Pos(220)}},
			Calls: []Call{
				{From: "example.com/service.Handle", Callee: "example.com/store.Lock", Pos: svc.Pos(220)},
				{From: "example.com/service.Handle", Callee: "example.com/store.Fetch", Pos: svc.Pos(320), Retried: retried},
			},
		}
		if retried {
			s.Retries = []Retry{{Pos: svc.Pos(105)}}
		}
		return s
	}

	m := Join(fset, []*Summary{storeSum, service(false)})
	fs := m.Findings()
	if len(fs) != 2 || fs[0].Pos != lock || fs[0].Category != "DSQL005" ||
		!strings.Contains(fs[0].Message, "begun at service.go:2, and nothing in this module retries on SQLSTATE 40001") ||
		len(fs[0].Related) != 2 || fs[0].Related[0].Message != BeginRelated ||
		fs[1].Pos != single || !strings.Contains(fs[1].Message, "outside any transaction") || !strings.Contains(fs[1].Message, "occ.ExecWithRetry") {
		t.Fatalf("unretried: %+v", fs)
	}
	// The module's verdict replaces a package's: a DSQL005 the module
	// does not make is dropped, one it makes takes its message.
	pkg := []analysis.Diagnostic{{Pos: single, Category: "DSQL005", Message: "package"}, {Pos: store.Pos(10), Category: "DSQL005", Message: "package"}}
	merged := Merge(m, pkg, func(d analysis.Diagnostic) analysis.Diagnostic { return d },
		func(_, d analysis.Diagnostic) analysis.Diagnostic { return d }, func(f Finding) analysis.Diagnostic { return f.Diagnostic })
	if len(merged) != 2 || merged[0].Pos != single || merged[0].Message == "package" || merged[1].Pos != lock {
		t.Errorf("merged: %+v", merged)
	}

	m = Join(fset, []*Summary{storeSum, service(true)})
	if fs := m.Findings(); len(fs) != 0 {
		t.Errorf("retried Begin: %+v", fs)
	}
	for _, d := range m.Decisions() {
		if d.Reported || len(d.Why) == 0 {
			t.Errorf("decision at %v: %+v", fset.Position(d.Pos), d)
		}
	}
}

// TestJoinOrder: where several unretried transactions run the same lock,
// the finding names the first by file and line, whatever order the files
// were parsed in (token.Pos follows it, and parallel loading changes it)
// and whatever order the summaries come in.
func TestJoinOrder(t *testing.T) {
	for _, bFirst := range []bool{false, true} {
		fset := token.NewFileSet()
		add := func(name string) *token.File { return addFile(fset, name) }
		var a, b *token.File
		if bFirst {
			b, a = add("b/b.go"), add("a/a.go")
		} else {
			a, b = add("a/a.go"), add("b/b.go")
		}
		store := add("store/store.go")
		lock := store.Pos(210)
		storeSum := &Summary{Pkg: "example.com/store", Enabled: true,
			Locks: []LockSite{{Pos: lock, End: lock + 10, What: "SELECT ... FOR UPDATE"}},
			Runs:  []LockRun{{Sites: []token.Pos{lock}, Func: "example.com/store.Lock", Param: 1, Begin: -1, Pos: lock}},
		}
		service := func(pkg string, f *token.File) *Summary {
			fn := "example.com/" + pkg + ".Handle"
			return &Summary{Pkg: "example.com/" + pkg, Enabled: true,
				Begins: []Begin{{Func: fn, Pos: f.Pos(110)}},
				Passes: []Pass{{From: fn, Param: NoHandle, Begin: 0, Callee: "example.com/store.Lock", Arg: 1, Pos: f.Pos(220)}},
				Calls:  []Call{{From: fn, Callee: "example.com/store.Lock", Pos: f.Pos(220)}},
			}
		}
		for _, sums := range [][]*Summary{
			{storeSum, service("a", a), service("b", b)},
			{service("b", b), storeSum, service("a", a)},
		} {
			fs := Join(fset, sums).Findings()
			if len(fs) != 1 || !strings.Contains(fs[0].Message, "begun at a.go:2") {
				t.Errorf("b parsed first %v, summaries from %s: %+v", bFirst, sums[0].Pkg, fs)
			}
		}
	}
}

// TestJoinWorstWay: of the unretried ways into a lock, the finding names
// a Begin before a function no call shows, whichever is met first.
func TestJoinWorstWay(t *testing.T) {
	fset := token.NewFileSet()
	add := func(name string) *token.File { return addFile(fset, name) }
	a, b, store := add("a/a.go"), add("b/b.go"), add("store/store.go")
	lock := store.Pos(210)
	storeSum := &Summary{Pkg: "example.com/store", Enabled: true,
		Locks: []LockSite{{Pos: lock, End: lock + 10, What: "SELECT ... FOR UPDATE"}},
		Runs:  []LockRun{{Sites: []token.Pos{lock}, Func: "example.com/store.Lock", Param: 1, Begin: -1, Pos: lock}},
	}
	// a hands on the transaction it is handed; no call in view hands it one.
	aSum := &Summary{Pkg: "example.com/a", Enabled: true,
		Passes: []Pass{{From: "example.com/a.Handle", Param: 1, Begin: -1, Callee: "example.com/store.Lock", Arg: 1, Pos: a.Pos(220)}},
		Calls:  []Call{{From: "example.com/a.Handle", Callee: "example.com/store.Lock", Pos: a.Pos(220)}},
	}
	bSum := &Summary{Pkg: "example.com/b", Enabled: true,
		Begins: []Begin{{Func: "example.com/b.Handle", Pos: b.Pos(110)}},
		Passes: []Pass{{From: "example.com/b.Handle", Param: NoHandle, Begin: 0, Callee: "example.com/store.Lock", Arg: 1, Pos: b.Pos(220)}},
		Calls:  []Call{{From: "example.com/b.Handle", Callee: "example.com/store.Lock", Pos: b.Pos(220)}},
	}
	fs := Join(fset, []*Summary{storeSum, aSum, bSum}).Findings()
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "begun at b.go:2") {
		t.Errorf("%+v", fs)
	}
}

// TestNearestRetries: the retries a lock's finding cites are those of its
// own store first (the directory sharing most of the lock's), each place
// once though a package and its test variant hold it at two positions.
func TestNearestRetries(t *testing.T) {
	fset := token.NewFileSet()
	file := func(name string) *token.File {
		f := fset.AddFile(name, -1, 1000)
		f.SetLinesForContent(make([]byte, 1000))
		return f
	}
	lock := file("/m/datastore/postgres/migrations/m.go").Pos(10)
	pool := file("/m/datastore/crdb/pool/pool.go").Pos(288)
	poolAgain := file("/m/datastore/crdb/pool/pool.go").Pos(288) // the test variant's copy
	pg := file("/m/datastore/postgres/postgres.go").Pos(454)
	g := &lockGraph{fset: fset, retries: []Retry{{Pos: pool}, {Pos: poolAgain}, {Pos: pg}}}
	got := g.nearestRetries(lock, 3)
	if len(got) != 2 || got[0].Pos != pg || got[1].Pos != pool {
		var names []string
		for _, r := range got {
			names = append(names, fset.Position(r.Pos).String())
		}
		t.Errorf("nearest retries: %v, want postgres.go then pool.go, once", names)
	}
}
