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

// BenchmarkParseUncached is a pg_query parse plus model building.
func BenchmarkParseUncached(b *testing.B) {
	for b.Loop() {
		parseStatement(benchQuery)
	}
}

// BenchmarkParseDistinct parses a new text every time through Parse.
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
