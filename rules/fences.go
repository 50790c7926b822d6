package rules

import (
	"slices"
	"sort"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// Fences records what the statements of a package (or of a whole module)
// tell about fencing, per table:
//   - the configured version, owner and state columns some write fences on
//     (or a schema declares);
//   - by usage, whatever the names: the columns UPDATEs assign, the columns
//     any statement compares, and the columns compared beside the key that
//     pins a row. A column the module writes and compares beside the key
//     (`SET worker = $1 ... WHERE worker IS NULL`, then `WHERE id = $2 AND
//     worker = $3`) is mutable coordination state: comparing it fences a
//     write. A configured name the module writes but never compares, on a
//     table it never locks, is payload (an OAuth2 `state` stored by key).
type Fences struct {
	tables map[string]*usage
	// filtered are the names SELECTs look rows up by, whatever the table.
	filtered map[string]bool
}

type usage struct {
	named    []string        // configured columns some write fences on
	written  map[string]bool // assigned by an UPDATE or ON CONFLICT DO UPDATE
	compared map[string]bool // compared by any statement's WHERE
	guarded  map[string]bool // compared beside the key that pins the row, in a write or a lock
	locked   bool            // some SELECT locks its rows
	pk       []string        // the schema's primary key
	keys     map[string]bool // its columns
	uniques  [][]string      // the schema's other unique keys
	lookup   map[string]bool // columns of a unique key some statement picks a row by, that key alone
}

// NewFences returns an empty record.
func NewFences() *Fences { return &Fences{tables: map[string]*usage{}, filtered: map[string]bool{}} }

func (f *Fences) table(cfg *Config, t sqlparse.Table) *usage {
	u := f.tables[t.Name]
	if u == nil {
		u = &usage{written: map[string]bool{}, compared: map[string]bool{}, guarded: map[string]bool{}, keys: map[string]bool{}, lookup: map[string]bool{}}
		if st := tableOf(cfg, t); st != nil {
			// The primary key picks the row; compared beside another
			// column it is part of the row's name, never its state. A
			// unique index may hold a column the module writes (a claim's
			// worker): that one is state.
			u.pk = st.PrimaryKey
			for _, c := range st.PrimaryKey {
				u.keys[c] = true
			}
			u.uniques = st.Uniques
		}
		f.tables[t.Name] = u
	}
	return u
}

// Learn records what st tells about fencing.
func (f *Fences) Learn(cfg *Config, st *sqlparse.Statement) {
	if ct := st.Create; ct != nil && !ct.Table.Unknown() && tableOf(cfg, ct.Table) == nil {
		// (A table the schema knows is judged by its typed columns.)
		for _, col := range ct.Columns {
			if cfg.FenceColumns.Has(col) {
				f.add(cfg, ct.Table, col)
			}
		}
	}
	for _, l := range st.Locks {
		if l.Select != nil && len(l.Select.Tables) == 1 && !l.Select.Tables[0].Unknown() {
			u := f.table(cfg, l.Select.Tables[0])
			u.locked = true
			u.learnWhere(l.Select.Where, nil)
		}
	}
	for _, name := range st.Filters {
		f.filtered[name] = true
	}
	w := st.Write
	if w == nil || w.Table.Unknown() {
		return
	}
	u := f.table(cfg, w.Table)
	for _, a := range w.Sets {
		if !a.Copied {
			u.written[a.Column] = true
		}
	}
	u.learnWhere(w.Where, w)
	for _, col := range fenceColumns(cfg, w, w.Where) {
		// A CAS on an ordinary column (a rename: SET username = 'admin'
		// WHERE username = 'root') fences that write but does not make the
		// table coordination state.
		if cfg.FenceColumns.Has(col) || cfg.OwnerColumns.Has(col) || cfg.StateColumns.Has(col) {
			f.add(cfg, w.Table, col)
		}
	}
}

// learnWhere records the columns a lock's or a write's WHERE compares. A
// column compared with a value of the caller's (a parameter, a constant,
// IS NULL) while another column pins the row by equality is a guard:
// `WHERE id = $2 AND worker = $3`. Not a guard: a comparison the write
// makes of a column it assigns too (a CAS on itself: a rename, or `data IS
// DISTINCT FROM $1`, fences that write but makes no coordination state),
// one that only rules a value out, a join (`t.parent_id = v.id`), a time
// (`< now()`), or a filter of a bulk write that pins no row.
func (u *usage) learnWhere(conds []sqlparse.Cond, w *sqlparse.Write) {
	var pinned []string // the columns pinned by a value of the caller's
	for _, c := range conds {
		if c.Column != "" && !c.InSubquery && c.Op == sqlparse.OpEq && c.Value == sqlparse.ValueCaller {
			pinned = append(pinned, c.Column)
		}
	}
	for _, k := range u.uniques {
		// The key, and beside it at most primary key columns (a shard).
		covers := !slices.ContainsFunc(k, func(c string) bool { return !slices.Contains(pinned, c) })
		extra := slices.ContainsFunc(pinned, func(c string) bool { return !slices.Contains(k, c) && !u.keys[c] })
		if covers && !extra {
			for _, c := range k {
				u.lookup[c] = true
			}
		}
	}
	for _, c := range conds {
		if c.Column == "" || c.InSubquery || !comparison(c.Op) {
			continue
		}
		u.compared[c.Column] = true
		if c.Value != sqlparse.ValueCaller || excludesOnly(c.Op) || (w != nil && assigns(w, c.Column)) {
			continue
		}
		if isRange(c.Op) && len(u.pk) > 0 && slices.ContainsFunc(u.pk, func(k string) bool { return !slices.Contains(pinned, k) }) {
			continue // a sweep over part of the key (record_expiry < $2 in a partition), not a row's guard
		}
		for _, d := range conds {
			if d.Column != "" && d.Column != c.Column && !d.InSubquery && d.Op == sqlparse.OpEq && d.Value == sqlparse.ValueCaller {
				u.guarded[c.Column] = true
				break
			}
		}
	}
}

func isRange(op sqlparse.Op) bool {
	return op == sqlparse.OpLt || op == sqlparse.OpLe || op == sqlparse.OpGt || op == sqlparse.OpGe
}

// Merge adds what o learned to f: the module's record is the union of its
// packages'.
func (f *Fences) Merge(o *Fences) {
	if o == nil {
		return
	}
	for name, ou := range o.tables {
		u := f.tables[name]
		if u == nil {
			u = &usage{written: map[string]bool{}, compared: map[string]bool{}, guarded: map[string]bool{}, keys: map[string]bool{}, lookup: map[string]bool{}}
			f.tables[name] = u
		}
		for _, c := range ou.named {
			if !slices.Contains(u.named, c) {
				u.named = append(u.named, c)
			}
		}
		sort.Strings(u.named)
		for _, m := range [][2]map[string]bool{{u.written, ou.written}, {u.compared, ou.compared}, {u.guarded, ou.guarded}, {u.keys, ou.keys}, {u.lookup, ou.lookup}} {
			for k := range m[1] {
				m[0][k] = true
			}
		}
		u.locked = u.locked || ou.locked
		if u.pk == nil {
			u.pk, u.uniques = ou.pk, ou.uniques
		}
	}
	for k := range o.filtered {
		f.filtered[k] = true
	}
}

func (f *Fences) add(cfg *Config, table sqlparse.Table, col string) {
	u := f.table(cfg, table)
	if !slices.Contains(u.named, col) {
		u.named = append(u.named, col)
		sort.Strings(u.named)
	}
}

// Of returns the columns table is fenced on elsewhere: the configured
// ones, then those its statements' usage shows.
func (f *Fences) Of(table string) []string {
	if f == nil || f.tables[table] == nil {
		return nil
	}
	u := f.tables[table]
	cols := slices.Clone(u.named)
	for _, c := range f.guards(u) {
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	return cols
}

// Named returns the configured columns table is fenced on elsewhere.
func (f *Fences) Named(table string) []string {
	if f == nil || f.tables[table] == nil {
		return nil
	}
	return f.tables[table].named
}

// guards returns, sorted, the columns written and compared beside a key.
func (f *Fences) guards(u *usage) []string {
	var cols []string
	for c := range u.guarded {
		if f.guard(u, c) {
			cols = append(cols, c)
		}
	}
	sort.Strings(cols)
	return cols
}

// Guard reports whether usage makes col of table mutable coordination
// state: the statements write it and compare it beside the row's key.
func (f *Fences) Guard(table, col string) bool {
	if f == nil || f.tables[table] == nil {
		return false
	}
	return f.guard(f.tables[table], col)
}

// guard: col is written and compared beside a key, and is no key itself.
//
// A column of a unique index the module writes is state too (a claim's
// worker), unless a statement picks a row by that unique key (beside
// primary key columns at most): then it is the row's other name (a
// renamed domain's, WHERE shard_id = $1 AND name = $2).
func (f *Fences) guard(u *usage, col string) bool {
	return u.written[col] && u.guarded[col] && !u.keys[col] && !u.lookup[col]
}

// Payload reports whether usage shows col of table to be payload whatever
// its name: the statements write it, none compares it or looks rows up by
// it, and nothing locks the table's rows.
func (f *Fences) Payload(table, col string) bool {
	if f == nil || f.tables[table] == nil {
		return false
	}
	u := f.tables[table]
	return u.written[col] && !u.compared[col] && !u.locked && !f.filtered[col]
}

// fenceColumns returns the columns of conds that fence the write w on its
// target row, excluding lease-expiry guards (which fence, but are not a
// column other writes are expected to compare). An OR fences only when
// every branch does; its columns are not returned.
func fenceColumns(cfg *Config, w *sqlparse.Write, conds []sqlparse.Cond) []string {
	var cols []string
	for _, c := range conds {
		if isFence(cfg, nil, w, c) && c.Op != sqlparse.OpOr && !isExpiryGuard(cfg, c) {
			cols = append(cols, c.Column)
		}
	}
	return cols
}

// fenced reports whether the WHERE of w compares, on the target row, a
// column that makes the write a compare-and-swap (RULES.md "Fencing").
func fenced(cfg *Config, f *Fences, w *sqlparse.Write, conds []sqlparse.Cond) bool {
	for _, c := range conds {
		if isFence(cfg, f, w, c) {
			return true
		}
	}
	return false
}

func isFence(cfg *Config, f *Fences, w *sqlparse.Write, c sqlparse.Cond) bool {
	if c.InSubquery {
		return false
	}
	if c.Op == sqlparse.OpOr {
		for _, branch := range c.Or {
			if !fenced(cfg, f, w, branch) {
				return false
			}
		}
		return len(c.Or) > 0
	}
	if c.Column == "" || c.Value == sqlparse.ValueColumn || c.Value == sqlparse.ValueOther {
		return false
	}
	// A column the module writes and compares beside the key, whatever
	// its name; `<> $me` takes the row from whoever holds it.
	if !w.Table.Unknown() && f.Guard(w.Table.Name, c.Column) && comparison(c.Op) &&
		!((c.Op == sqlparse.OpNe || c.Op == sqlparse.OpDistinct) && c.Value == sqlparse.ValueCaller) {
		return true
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
