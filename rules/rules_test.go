package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// check runs the catalogue over texts as if they were one package.
func check(texts ...string) []Finding { return checkWith(DefaultConfig(), texts...) }

// checkWith is check with a configuration.
func checkWith(cfg *Config, texts ...string) []Finding {
	fences := fencing.NewFences()
	var scripts []*sqlparse.Script
	for i, t := range texts {
		s := sqlparse.Parse(t)
		scripts = append(scripts, s)
		for _, st := range s.Stmts {
			fences.Learn(&cfg.Known, st, fmt.Sprintf("text%d:1", i+1))
		}
	}
	var out []Finding
	for _, s := range scripts {
		out = append(out, Check(&Context{Config: cfg, Style: s.Style, MaxParam: s.MaxParam, Fences: fences}, s)...)
	}
	return out
}

func ids(fs []Finding) string {
	var s []string
	for _, f := range fs {
		s = append(s, f.Rule.ID)
	}
	return strings.Join(s, ",")
}

func TestShareLockVersions(t *testing.T) {
	q := "SELECT id FROM t WHERE id = $1 FOR KEY SHARE"
	cfg := DefaultConfig()
	s := sqlparse.Parse(q)
	if got := ids(Check(&Context{Config: cfg}, s)); got != "" {
		t.Errorf("FOR KEY SHARE at %s: %s", cfg.Target, got)
	}
	cfg.Target = MustVersion("2026-01")
	if got := ids(Check(&Context{Config: cfg}, s)); got != "DSQL001" {
		t.Errorf("FOR KEY SHARE at 2026-01: %q", got)
	}
}

func TestMessages(t *testing.T) {
	fs := check("SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE", "SELECT * FROM t WHERE id = ? LOCK IN SHARE MODE")
	if len(fs) != 2 {
		t.Fatalf("got %v", fs)
	}
	if !strings.HasPrefix(fs[0].Message, "DSQL001 share-lock: FOR SHARE is not supported by Aurora DSQL") ||
		!strings.HasPrefix(fs[1].Message, "DSQL002 mysql-share-lock: ") {
		t.Errorf("messages: %q / %q", fs[0].Message, fs[1].Message)
	}
}

// A rule that panics on one statement is recorded; the others still report.
var panicky = register(&Rule{ID: "DSQL999", Name: "test-panic", check: func(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
	if strings.Contains(ctx.Text, "dsqllint_panic") {
		panic("boom")
	}
}})

// A name Go assembles at run time is said as one, not as the placeholder
// the parse stood in for it.
func TestRunTimeNamesInMessages(t *testing.T) {
	fs := check("alter table " + sqlparse.HoleIdent + " drop constraint " + sqlparse.HoleIdent + "_pkey")
	if len(fs) == 0 {
		t.Fatal("DROP CONSTRAINT not reported")
	}
	for _, f := range fs {
		if strings.Contains(f.Message, sqlparse.HoleIdent) || !strings.Contains(f.Message, "DROP CONSTRAINT <run-time>_pkey") {
			t.Errorf("message: %s", f.Message)
		}
	}
}

func TestPanickingRuleIsContained(t *testing.T) {
	ctx := &Context{Config: DefaultConfig(), Fences: fencing.NewFences()}
	fs := Check(ctx, sqlparse.Parse("SELECT dsqllint_panic FROM shards WHERE shard_id = $1 FOR SHARE"))
	if ids(fs) != "DSQL001" {
		t.Errorf("other rules' findings: %q", ids(fs))
	}
	if len(ctx.Panics) != 1 || ctx.Panics[0].Rule != panicky || ctx.Panics[0].Value != "boom" || ctx.Panics[0].Span.Start != 0 {
		t.Errorf("panics: %+v", ctx.Panics)
	}
}

// A guard on the column the write sets is a compare-and-swap whose lost
// race matters for a state machine's claim, not for a rename, a flag or a
// soft-delete mark: no row changed means it is done already.
func TestCASWriteToggles(t *testing.T) {
	cfg := DefaultConfig()
	for q, want := range map[string]bool{
		"UPDATE jobs SET status = 'running' WHERE id = $1 AND status = 'pending'":   true,
		"UPDATE shards SET range_id = $1 WHERE shard_id = $2 AND range_id = $3":     true,
		"UPDATE jobs SET paused = true WHERE id = $1 AND paused = false":            false,
		"UPDATE users SET name = $1 WHERE id = $2 AND name = $3":                    false,
		"UPDATE counters SET deleted_xid = $1 WHERE name = $2 AND deleted_xid = $3": false,
	} {
		if got := IsCASWrite(cfg, sqlparse.Parse(q).Stmts[0]); got != want {
			t.Errorf("IsCASWrite(%q) = %v, want %v", q, got, want)
		}
	}
}

// DSQL's own answers, which dsqlcheck repeats: the node it names, the
// level it judges before the statement.
func TestRecordedAnswers(t *testing.T) {
	for q, want := range map[string]string{
		"CREATE TYPE pair AS (a int, b int)":                           "(0A000 unsupported statement: CompositeType)",
		"CREATE TYPE span AS RANGE (subtype = int4)":                   "(0A000 unsupported statement: CreateRange)",
		"CREATE TYPE mood AS ENUM ('sad', 'ok')":                       "(0A000 CREATE TYPE not supported)",
		"MERGE INTO a USING b ON a.id = b.id WHEN MATCHED THEN DELETE": "(0A000 unsupported statement type: MERGE)",
		"SET TRANSACTION ISOLATION LEVEL READ COMMITTED":               "(0A000 Unsupported isolation level: READ COMMITTED)",
		"SET TRANSACTION ISOLATION LEVEL REPEATABLE READ":              `(0A000 setting configuration parameter "TRANSACTION" not supported)`,
	} {
		fs := check(q)
		if len(fs) != 1 || !strings.Contains(fs[0].Message, want) {
			t.Errorf("%s: got %v, want one finding saying %s", q, fs, want)
		}
	}
}
