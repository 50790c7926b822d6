package fixer

import (
	"testing"

	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// FuzzFixesKeepSQLParsing applies every fix the rules offer for a text and
// checks the result: statements that parsed before still parse, and the
// fixed text raises no finding with a fix again (a second -fix is a no-op).
func FuzzFixesKeepSQLParsing(f *testing.F) {
	for _, s := range []string{
		"SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE",
		"select * from t where id = ? lock in\n share mode",
		"SELECT a FROM t WHERE id = $1 FOR NO KEY\n  UPDATE NOWAIT; SELECT b FROM u WHERE k = 1 For Key Share",
		"BEGIN ISOLATION LEVEL SERIALIZABLE, READ WRITE",
		"WITH x AS (SELECT id FROM t WHERE id = :id FOR SHARE) SELECT * FROM x",
	} {
		f.Add(s)
	}
	cfg := rules.DefaultConfig()
	cfg.Target = rules.MustVersion("2026-01")
	f.Fuzz(func(t *testing.T, text string) {
		before := sqlparse.Parse(text)
		var edits []Edit
		for _, fd := range rules.Check(&rules.Context{Config: cfg, Fences: fencing.NewFences()}, before) {
			if fd.Fix == nil {
				continue
			}
			for _, e := range fd.Fix.Edits {
				edits = append(edits, Edit{Start: e.Span.Start, End: e.Span.End, New: e.New})
			}
		}
		if len(edits) == 0 {
			return
		}
		fixed, err := Apply([]byte(text), edits)
		if err != nil {
			t.Fatalf("fixes of %q do not apply: %v", text, err)
		}
		after := sqlparse.Parse(string(fixed))
		if len(after.Stmts) != len(before.Stmts) {
			t.Fatalf("fixing %q changed the statement count: %q", text, fixed)
		}
		for i, st := range before.Stmts {
			if st.Kind != sqlparse.KindUnparsed && after.Stmts[i].Kind == sqlparse.KindUnparsed {
				t.Fatalf("fixing %q broke statement %d: %q: %s", text, i, fixed, after.Stmts[i].ParseError)
			}
		}
		for _, fd := range rules.Check(&rules.Context{Config: cfg, Fences: fencing.NewFences()}, after) {
			if fd.Fix != nil {
				t.Fatalf("after fixing %q into %q, %s still offers a fix", text, fixed, fd.Rule.ID)
			}
		}
	})
}
