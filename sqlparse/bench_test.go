package sqlparse

import (
	"strconv"
	"testing"
)

const benchQuery = `UPDATE executions SET next_event_id = $1, state = $2, data = $3
WHERE shard_id = $4 AND namespace_id = $5 AND workflow_id = $6 AND run_id = $7 AND next_event_id = $8`

// BenchmarkPrefilterReject measures the cost paid by the ordinary,
// non-SQL string constants of a package.
func BenchmarkPrefilterReject(b *testing.B) {
	s := "failed to update shard ownership for shard %d: range id changed"
	for b.Loop() {
		if LooksLikeSQL(s) {
			b.Fatal("prose accepted")
		}
	}
}

func BenchmarkNormalize(b *testing.B) {
	q := "UPDATE leases SET heartbeat_at = ?, expires_at = ? WHERE resource_id = ? AND worker_id = ?"
	for b.Loop() {
		Normalize(q)
	}
}

// benchTreeQuery is benchQuery with an OR, which takes it out of the token
// model's shape.
const benchTreeQuery = benchQuery + " AND (state = $9 OR state IS NULL)"

// BenchmarkParseTree is a pg_query parse plus model building.
func BenchmarkParseTree(b *testing.B) {
	toks := Lex(benchTreeQuery)
	for b.Loop() {
		parseTree(&Statement{}, benchTreeQuery, toks, 0)
	}
}

// BenchmarkParseDistinctTree parses a new text that needs pg_query every
// time through Parse.
func BenchmarkParseDistinctTree(b *testing.B) {
	i := 0
	for b.Loop() {
		i++
		Parse(benchTreeQuery + " -- " + strconv.Itoa(i))
	}
}

// BenchmarkParseDistinct parses a new fenced UPDATE every time through
// Parse: the token model answers.
func BenchmarkParseDistinct(b *testing.B) {
	i := 0
	for b.Loop() {
		i++
		Parse(benchQuery + " -- " + strconv.Itoa(i))
	}
}

// BenchmarkParseDistinctRead parses a new plain read every time: the token
// model answers without pg_query.
func BenchmarkParseDistinctRead(b *testing.B) {
	i := 0
	for b.Loop() {
		i++
		Parse("SELECT id, status, payload FROM workflow_executions WHERE namespace = $1 AND status = 'pending' ORDER BY created_at LIMIT $2 -- " + strconv.Itoa(i))
	}
}

// BenchmarkParseCached parses the same text again: the cache makes it
// cost a map lookup.
func BenchmarkParseCached(b *testing.B) {
	Parse(benchQuery)
	for b.Loop() {
		Parse(benchQuery)
	}
}
