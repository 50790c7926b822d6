package fencing

import (
	"reflect"
	"testing"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// TestWire: fences sent as a fact come back as they were learned, and a
// clone shares nothing with its source.
func TestWire(t *testing.T) {
	f := NewFences()
	known := &Known{}
	for _, q := range []string{
		"UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3",
		"UPDATE jobs SET worker_id = $1, expires_at = now() + interval '1 minute' WHERE id = $2 AND (worker_id IS NULL OR expires_at < now())",
		"UPDATE jobs SET progress = $1 WHERE id = $2 AND worker_id = $3",
		"SELECT id FROM queue WHERE state = 'available' FOR UPDATE SKIP LOCKED",
		"UPDATE queue SET state = 'running' WHERE id = $1",
	} {
		s := sqlparse.Parse(q)
		for _, st := range s.Stmts {
			f.Learn(known, st, "store.go:1")
		}
	}
	data, err := f.GobEncode()
	if err != nil {
		t.Fatal(err)
	}
	var g Fences
	if err := g.GobDecode(data); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"shards", "jobs", "queue"} {
		if want, got := f.Of(known, table), g.Of(known, table); !reflect.DeepEqual(want, got) || !want.Any() {
			t.Errorf("%s: sent %+v, received %+v", table, want, got)
		}
	}
	c := f.Clone()
	c.Merge(&g)
	if len(f.Tables["shards"].CAS["range_id"]) != 1 {
		t.Errorf("merging into a clone changed its source: %+v", f.Tables["shards"].CAS)
	}
}
