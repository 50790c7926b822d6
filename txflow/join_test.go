package txflow

import (
	"go/token"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
)

// Summaries written by hand: a service begins a transaction and passes it
// to a store function that locks FOR UPDATE. Join reports the lock, naming
// the Begin, unless the Begin is retried; a single statement that locks is
// overruled when every caller retries it.
func TestJoin(t *testing.T) {
	fset := token.NewFileSet()
	svc := fset.AddFile("service/service.go", -1, 1000)
	svc.SetLines([]int{0, 100, 200, 300, 400, 500})
	store := fset.AddFile("store/store.go", -1, 1000)
	store.SetLines([]int{0, 100, 200, 300, 400, 500})
	lock := store.Pos(210)
	storeSum := &Summary{Pkg: "example.com/store", Enabled: true,
		Stmts:       []ParamStmt{{Func: "example.com/store.Lock", Param: 1, Pos: lock, End: lock + 10, Lock: true, Table: "shards", Keys: []string{"id"}}},
		SingleLocks: []SingleLock{{Func: "example.com/store.Fetch", Pos: store.Pos(410)}},
	}
	service := func(retried bool) *Summary {
		s := &Summary{Pkg: "example.com/service", Enabled: true,
			Begins: []Begin{{Func: "example.com/service.Handle", Pos: svc.Pos(110), Retried: retried}},
			Passes: []Pass{{From: "example.com/service.Handle", Param: NoHandle, Begin: 0, Callee: "example.com/store.Lock", Arg: 1, Pos: svc.Pos(220)}},
		}
		if retried {
			s.Retried = []string{"example.com/store.Fetch"}
		} else {
			s.Unretried = []string{"example.com/store.Fetch"}
		}
		return s
	}

	m := Join(fset, []*Summary{storeSum, service(false)})
	fs := m.Findings()
	if len(fs) != 1 || fs[0].Pos != lock || fs[0].Category != "DSQL005" ||
		!strings.Contains(fs[0].Message, "begun at service.go:2") || len(fs[0].Related) != 2 || fs[0].Related[0].Message != BeginRelated {
		t.Fatalf("unretried: %+v", fs)
	}
	single := analysis.Diagnostic{Pos: store.Pos(410), Category: "DSQL005"}
	if m.overrules(single) {
		t.Error("a single lock some caller runs bare was overruled")
	}

	m = Join(fset, []*Summary{storeSum, service(true)})
	if fs := m.Findings(); len(fs) != 0 {
		t.Errorf("retried Begin: %+v", fs)
	}
	if !m.overrules(single) {
		t.Error("a single lock every caller retries stays reported")
	}
}
