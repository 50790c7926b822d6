package rules

import "testing"

func TestLockWaitPolicy(t *testing.T) {
	runCases(t, DefaultConfig(), []compatCase{
		{"SELECT id FROM jobs WHERE status = 'pending' ORDER BY run_at LIMIT 10 FOR UPDATE SKIP LOCKED", "DSQL006"},
		{"SELECT * FROM jobs WHERE id = $1 FOR UPDATE NOWAIT", "DSQL006"},
		{"SELECT * FROM jobs WHERE id = $1 FOR KEY SHARE SKIP LOCKED", "DSQL006"},
		{"WITH next AS (SELECT id FROM jobs WHERE id = $1 FOR UPDATE SKIP LOCKED) UPDATE jobs SET payload = $2 FROM next WHERE jobs.id = next.id", "DSQL006"},
		{" FOR UPDATE SKIP LOCKED", "DSQL006"},
		{"SELECT * FROM a JOIN b ON a.id = b.a_id WHERE a.id = $1 FOR UPDATE OF a NOWAIT", "DSQL006"},
		// Beside DSQL001: every problem of the statement at once.
		{"SELECT * FROM jobs WHERE id = $1 FOR SHARE SKIP LOCKED", "DSQL001,DSQL006"},
		{"SELECT id FROM jobs WHERE state = 'ready' LIMIT 1 FOR NO KEY UPDATE SKIP LOCKED", "DSQL001,DSQL006"},
		// Negatives: no wait policy; the words in strings; a SELECT
		// without FROM.
		{"SELECT * FROM jobs WHERE id = $1 FOR UPDATE", ""},
		{"SELECT 'SKIP LOCKED' FROM jobs WHERE id = $1", ""},
		{"SELECT 1 FOR UPDATE NOWAIT", ""},
	})
	runCases(t, at("2026-01"), []compatCase{
		{"SELECT * FROM jobs WHERE id = $1 FOR KEY SHARE SKIP LOCKED", "DSQL001,DSQL006"},
	})
}
