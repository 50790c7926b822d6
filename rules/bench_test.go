package rules

import (
	"strconv"
	"testing"

	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// BenchmarkQuery is the whole per-query path: prefilter, parse of a text not
// seen before, and every rule.
func BenchmarkQuery(b *testing.B) {
	const q = "UPDATE workflow_executions SET status = ?, error_message = COALESCE(?, error_message) WHERE id = ? AND namespace = ?"
	ctx := &Context{Config: DefaultConfig(), Fences: fencing.NewFences()}
	i := 0
	for b.Loop() {
		i++
		text := q + " -- " + strconv.Itoa(i)
		if !sqlparse.LooksLikeSQL(text) {
			b.Fatal("rejected")
		}
		s := sqlparse.Parse(text)
		if len(Check(ctx, s)) != 1 {
			b.Fatal("want one finding")
		}
	}
}

// BenchmarkRules is the rules alone over a parsed statement.
func BenchmarkRules(b *testing.B) {
	s := sqlparse.Parse("SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE")
	ctx := &Context{Config: DefaultConfig(), Fences: fencing.NewFences()}
	for b.Loop() {
		Check(ctx, s)
	}
}
