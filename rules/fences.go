package rules

import (
	"slices"
	"sort"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// Fences records, per table, the columns on which some statement of the
// package fences writes (or a schema declares a version column), so that a
// write of the same table without that predicate is suspect.
type Fences struct {
	tables map[string][]string
}

// NewFences returns an empty record.
func NewFences() *Fences { return &Fences{tables: map[string][]string{}} }

// Learn records what st tells about fencing.
func (f *Fences) Learn(cfg *Config, st *sqlparse.Statement) {
	if ct := st.Create; ct != nil && !ct.Table.Unknown() && tableOf(cfg, ct.Table) == nil {
		// (A table the schema knows is judged by its typed columns.)
		for _, col := range ct.Columns {
			if cfg.FenceColumns.Has(col) {
				f.add(ct.Table.Name, col)
			}
		}
	}
	w := st.Write
	if w == nil || w.Table.Unknown() {
		return
	}
	for _, col := range fenceColumns(cfg, w, w.Where) {
		// A CAS on an ordinary column (a rename: SET username = 'admin'
		// WHERE username = 'root') fences that write but does not make the
		// table coordination state.
		if cfg.FenceColumns.Has(col) || cfg.OwnerColumns.Has(col) || cfg.StateColumns.Has(col) {
			f.add(w.Table.Name, col)
		}
	}
}

func (f *Fences) add(table, col string) {
	if !slices.Contains(f.tables[table], col) {
		f.tables[table] = append(f.tables[table], col)
		sort.Strings(f.tables[table])
	}
}

// Of returns the columns table is fenced on elsewhere.
func (f *Fences) Of(table string) []string {
	if f == nil {
		return nil
	}
	return f.tables[table]
}

// fenceColumns returns the columns of conds that fence the write w on its
// target row, excluding lease-expiry guards (which fence, but are not a
// column other writes are expected to compare). An OR fences only when
// every branch does; its columns are not returned.
func fenceColumns(cfg *Config, w *sqlparse.Write, conds []sqlparse.Cond) []string {
	var cols []string
	for _, c := range conds {
		if isFence(cfg, w, c) && c.Op != sqlparse.OpOr && !isExpiryGuard(cfg, c) {
			cols = append(cols, c.Column)
		}
	}
	return cols
}

// fenced reports whether the WHERE of w compares, on the target row, a
// column that makes the write a compare-and-swap (RULES.md "Fencing").
func fenced(cfg *Config, w *sqlparse.Write, conds []sqlparse.Cond) bool {
	for _, c := range conds {
		if isFence(cfg, w, c) {
			return true
		}
	}
	return false
}

func isFence(cfg *Config, w *sqlparse.Write, c sqlparse.Cond) bool {
	if c.InSubquery {
		return false
	}
	if c.Op == sqlparse.OpOr {
		for _, branch := range c.Or {
			if !fenced(cfg, w, branch) {
				return false
			}
		}
		return len(c.Or) > 0
	}
	if c.Column == "" || c.Value == sqlparse.ValueColumn || c.Value == sqlparse.ValueOther {
		return false
	}
	owner := cfg.OwnerColumns.Has(c.Column)
	switch {
	case owner:
		// An owner counts only when compared with the caller: `owner =
		// $me`, or `owner IS NULL` to claim a free row. `owner <> $me`
		// takes the row from whoever holds it.
		if (c.Op == sqlparse.OpEq && c.Value == sqlparse.ValueCaller) || c.Op == sqlparse.OpIsNull {
			return true
		}
	case assigns(w, c.Column):
		// A compare of the very column the statement assigns, whatever
		// the operator, is a CAS or a state-machine guard:
		// SET status = 'cancelled' ... AND status NOT IN ('done', 'failed').
		if comparison(c.Op) {
			return true
		}
	case w.Kind == sqlparse.KindDelete && (cfg.StateColumns.Has(c.Column) || cfg.FenceColumns.Has(c.Column)) && comparison(c.Op):
		// A DELETE that compares the row's state or version deletes it
		// only as it was read: DELETE ... WHERE id = $1 AND state = 'done'.
		return true
	case cfg.FenceColumns.Has(c.Column):
		if c.Op == sqlparse.OpEq || c.Op == sqlparse.OpIn || c.Op == sqlparse.OpIsNull {
			return true
		}
	}
	return isExpiryGuard(cfg, c)
}

// comparison reports an operator that compares a column with a value.
func comparison(op sqlparse.Op) bool {
	switch op {
	case sqlparse.OpEq, sqlparse.OpNe, sqlparse.OpLt, sqlparse.OpLe, sqlparse.OpGt, sqlparse.OpGe,
		sqlparse.OpIn, sqlparse.OpNotIn, sqlparse.OpIsNull, sqlparse.OpIsNotNull, sqlparse.OpDistinct:
		return true
	}
	return false
}

// isExpiryGuard matches `expires_at < now()` / `expires_at <= $n`: the write
// only happens once the lease on that row has run out.
func isExpiryGuard(cfg *Config, c sqlparse.Cond) bool {
	return (c.Op == sqlparse.OpLt || c.Op == sqlparse.OpLe) && cfg.ExpiryColumns.Has(c.Column) &&
		(c.Value == sqlparse.ValueNow || c.Value == sqlparse.ValueCaller)
}

func assigns(w *sqlparse.Write, col string) bool {
	for _, a := range w.Sets {
		if a.Column == col {
			return true
		}
	}
	return false
}

// keyColumns returns the columns w's WHERE pins by equality with a value
// from the caller: the row's key as far as the statement tells.
func keyColumns(conds []sqlparse.Cond) []string {
	var keys []string
	for _, c := range conds {
		if c.Op == sqlparse.OpEq && c.Value == sqlparse.ValueCaller && c.Column != "" && !c.InSubquery {
			keys = append(keys, c.Column)
		}
	}
	return keys
}

// LockKeys describes a FOR UPDATE lock for the analyzer's bookkeeping of
// "locked earlier in the same function": the table and the key columns its
// WHERE pins. ok is false for locks that pin no single table's rows.
func LockKeys(l *sqlparse.Lock) (table string, keys []string, ok bool) {
	if l.Strength != sqlparse.ForUpdate || l.Select == nil || len(l.Select.Tables) != 1 || l.Select.Tables[0].Unknown() {
		return "", nil, false
	}
	keys = keyColumns(l.Select.Where)
	return l.Select.Tables[0].Name, keys, len(keys) > 0
}

// WriteKeys describes an UPDATE or DELETE for the module stage's
// bookkeeping of "locked earlier in the same transaction": the table and
// the key columns its WHERE pins. ok is false for other statements.
func WriteKeys(st *sqlparse.Statement) (table string, keys []string, ok bool) {
	w := st.Write
	if w == nil || w.Kind == sqlparse.KindInsert || w.Table.Unknown() {
		return "", nil, false
	}
	keys = keyColumns(w.Where)
	return w.Table.Name, keys, len(keys) > 0
}
