package rules

import (
	"slices"

	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// UncheckedCAS is DSQL004, reported by the analyzer where a CAS write's
// result is dropped, and here where sqlc is told to drop it.
var UncheckedCAS = register(&Rule{
	ID:       "DSQL004",
	Name:     "unchecked-cas",
	Severity: Warning,
	Summary:  "a compare-and-swap write whose affected-row count is never read",
	check:    checkSqlcExec,
})

// checkSqlcExec reports a CAS write sqlc generates as `:exec`: the method
// returns only an error, so no caller can see that no row changed.
func checkSqlcExec(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
	if st.Write == nil {
		return
	}
	name, cmd := sqlparse.SqlcQuery(ctx.Text, st.Span.Start)
	if cmd != ":exec" || !IsCASWrite(ctx.Config, st) {
		return
	}
	report(st.KeywordSpan, "the compare-and-swap write "+name+" is annotated :exec, so the method sqlc generates drops its row count "+
		"and a lost race (0 rows changed) looks like success; annotate it :execrows and check that the count is 1 "+
		"(or return *occ.ConditionFailedError)", nil)
}

// IsCASWrite reports whether st is a single-row compare-and-swap write: its
// WHERE pins the row by key equality and carries a fence predicate. With a
// schema, the key is the table's primary key or a unique key; without one,
// any column compared for equality besides the fence. Fences learned from
// usage do not count: a write that is a CAS only by them may take 0 rows
// for success (delete the pointer if it is still ours).
func IsCASWrite(cfg *Config, st *sqlparse.Statement) bool {
	w := st.Write
	if w == nil || w.Kind == sqlparse.KindInsert || !w.HasWhere {
		return false
	}
	fence := map[string]bool{}
	for _, c := range w.Where {
		// A guard that only rules a value out (status IS DISTINCT FROM
		// 'done', executor_id <> $1) makes the write idempotent: no row
		// changed means it was done already, not that a race was lost.
		if casPredicate(cfg, w, c) && c.Op != sqlparse.OpOr && !isExpiryGuard(cfg, c) && !fencing.ExcludesOnly(c.Op) && !toggle(cfg, w, c) {
			fence[c.Column] = true
		}
	}
	if len(fence) == 0 {
		return false
	}
	if t := tableOf(cfg, w.Table); t != nil && len(t.Keys()) > 0 {
		return pinnedKey(t, w.Where) // single-row: a primary or unique key pinned
	}
	for _, k := range fencing.KeyColumns(w.Where) {
		if !fence[k] {
			return true // a key column besides the fence pins the row
		}
	}
	return false
}

// UncheckedCASMessage is DSQL004's message; how says what happens to the
// result ("is discarded", "is never read", ...).
func UncheckedCASMessage(how, helper string) string {
	return "the result of this compare-and-swap write " + how + ", so a lost race (0 rows changed) looks like success; " +
		"check RowsAffected() == 1 or use " + helper + ", which returns *occ.ConditionFailedError"
}

// toggle reports a guard on the very column the write sets, where that
// column is no configured version, owner, state or lease: a rename (SET
// name = $new WHERE name = $old), a flag (SET paused = true WHERE paused =
// false), a soft-delete mark. No row changed means it is done already.
// A state machine's claim (SET status = 'running' WHERE status =
// 'pending') stays a CAS.
func toggle(cfg *Config, w *sqlparse.Write, c sqlparse.Cond) bool {
	return fencing.Assigns(w, c.Column) && !cfg.FenceColumns.Has(c.Column) && !cfg.OwnerColumns.Has(c.Column) &&
		!cfg.StateColumns.Has(c.Column) && !cfg.ExpiryColumns.Has(c.Column)
}

// UncheckedCASResultMessage is DSQL004's message at a caller that drops
// the result a function returns from a compare-and-swap write.
func UncheckedCASResultMessage(callee, how string) string {
	return "the result " + callee + " returns from a compare-and-swap write " + how + ", so a lost race (0 rows changed) looks like success; " +
		"check RowsAffected() == 1, or have " + callee + " do it and return *occ.ConditionFailedError"
}

// casPredicate reports a conjunct that makes a write a compare-and-swap by
// what it compares: a column the write assigns, a configured version or
// owner compared with the caller, or a lease's expiry (RULES.md
// "Fencing").
func casPredicate(cfg *Config, w *sqlparse.Write, c sqlparse.Cond) bool {
	if c.InSubquery {
		return false
	}
	if c.Op == sqlparse.OpOr {
		for _, branch := range c.Or {
			if !slices.ContainsFunc(branch, func(b sqlparse.Cond) bool { return casPredicate(cfg, w, b) }) {
				return false
			}
		}
		return len(c.Or) > 0
	}
	if c.Column == "" || c.Value == sqlparse.ValueColumn || c.Value == sqlparse.ValueOther || !fencing.Comparison(c.Op) || fencing.SkipsUnchanged(w, c) {
		return false
	}
	switch {
	case cfg.OwnerColumns.Has(c.Column):
		// `owner = $me`, or `owner IS NULL` to claim a free row; `owner
		// <> $me` takes the row from whoever holds it.
		if c.Op == sqlparse.OpEq && c.Value == sqlparse.ValueCaller || c.Op == sqlparse.OpIsNull {
			return true
		}
	case fencing.Assigns(w, c.Column):
		return true
	case w.Kind == sqlparse.KindDelete && (cfg.StateColumns.Has(c.Column) || cfg.FenceColumns.Has(c.Column)):
		return true
	case cfg.FenceColumns.Has(c.Column):
		if c.Op == sqlparse.OpEq || c.Op == sqlparse.OpIn || c.Op == sqlparse.OpIsNull {
			return true
		}
	}
	return isExpiryGuard(cfg, c)
}

// isExpiryGuard matches `expires_at < now()` / `expires_at <= $n`: the write
// only happens once the lease on that row has run out.
func isExpiryGuard(cfg *Config, c sqlparse.Cond) bool {
	return (c.Op == sqlparse.OpLt || c.Op == sqlparse.OpLe) && cfg.ExpiryColumns.Has(c.Column) &&
		(c.Value == sqlparse.ValueNow || c.Value == sqlparse.ValueCaller)
}
