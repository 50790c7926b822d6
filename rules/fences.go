package rules

import (
	"slices"
	"sort"
	"strings"

	"github.com/dsqllint/dsqllint/catalog"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// Fences records what the statements of a package (or of a whole module)
// show of contention, per table: evidence that other processes race for its
// rows, where that evidence is, and which columns are the contended state.
//
// Evidence is what a statement does, never what a column is called:
//   - a lock: a SELECT ... FOR UPDATE, FOR NO KEY UPDATE or FOR SHARE of the
//     table's rows (a SKIP LOCKED claim among them);
//   - a compare-and-swap: a write that pins a row by its key and compares
//     a column it assigns (SET state = 'running' WHERE id = $1 AND state =
//     'pending'; SET value = $3 WHERE key = $2 AND value = $4);
//   - a guard: a column a write compares with the caller's value beside
//     the row's key (an owner, a lease, a version: WHERE id = $1 AND
//     worker = $2), when some statement writes that column.
//
// Not evidence: a filter (a SELECT's WHERE), a comparison with the very
// value a write assigns (`SET c = $1 ... WHERE c <> $1` skips a write that
// changes nothing), a rename (the column compared is the only pin), and a
// column's name.
type Fences struct {
	tables map[string]*usage
	// filtered are the names SELECTs look rows up by, and those writes of
	// tables named at run time compare, whatever the table.
	filtered map[string]bool
	// of caches Of's answers until the next Learn or Merge.
	of map[string]Contention
	// local are the tables the package's own Go strings create, for
	// their keys where the project's schema does not know them.
	local *catalog.Catalog
}

// UseKeysOf makes the keys of the tables cat knows count where the
// project's schema does not know the table: a package that creates its
// tables in Go constants names their keys there.
// The keys travel with the record to the module stage, where another
// package's statements may need them.
func (f *Fences) UseKeysOf(cat *catalog.Catalog) {
	f.local = cat
	for _, t := range cat.Tables() {
		if f.tables[t.Name] == nil && len(t.PrimaryKey) > 0 {
			u := newUsage()
			u.schema, u.pk, u.uniques = t, t.PrimaryKey, t.Uniques
			for _, c := range t.PrimaryKey {
				u.keys[c] = true
			}
			f.tables[t.Name] = u
		}
	}
}

// Evidence is one statement that shows a table contended: where it is
// ("store/task.go:124") and what it does ("locks it FOR UPDATE").
type Evidence struct {
	At, Does string
}

func (e Evidence) String() string {
	if e.At == "" {
		return "a statement " + e.Does
	}
	return e.At + " " + e.Does
}

type usage struct {
	lock     Evidence            // the first lock of its rows
	lockCols map[string]bool     // what the locks read, "*" for a star
	cas      map[string][]guard  // columns some write compare-and-sets, and what it pins
	marks    map[string]Evidence // columns some write sets where still NULL
	flags    map[string]bool     // columns the writes set to true or false only
	guards   map[string][]guard  // columns compared beside the key with the caller's value
	written  map[string]bool     // assigned by an UPDATE or ON CONFLICT DO UPDATE
	targeted map[string]bool     // assigned by a write of a few columns (a claim, a bump), not a save of the row
	compared map[string]bool     // compared by a write's or a lock's WHERE
	states   map[string]bool     // compared there for (in)equality: a state, not a time
	claimed  map[string]bool     // compared so by a lock's WHERE: what a claim picks rows by
	pk       []string            // the schema's primary key
	keys     map[string]bool     // its columns
	uniques  [][]string          // the schema's other unique keys
	lookup   map[string]bool     // columns of a unique key some statement picks a row by, that key alone
	rowKeys  [][]string          // what the statements that show contention pick a row by
	schema   *catalog.Table      // the schema's table, when it knows it
}

// guard is a comparison of a column with the caller's value beside the
// columns that pin the row.
type guard struct {
	Evidence
	pins []string
}

func newUsage() *usage {
	return &usage{lockCols: map[string]bool{}, cas: map[string][]guard{}, marks: map[string]Evidence{}, flags: map[string]bool{}, guards: map[string][]guard{},
		written: map[string]bool{}, targeted: map[string]bool{}, compared: map[string]bool{}, states: map[string]bool{}, claimed: map[string]bool{}, keys: map[string]bool{}, lookup: map[string]bool{}}
}

// NewFences returns an empty record.
func NewFences() *Fences { return &Fences{tables: map[string]*usage{}, filtered: map[string]bool{}} }

func (f *Fences) table(cfg *Config, t sqlparse.Table) *usage {
	u := f.tables[t.Name]
	if u == nil {
		u = newUsage()
		st := tableOf(cfg, t)
		if st == nil && f.local != nil && !t.Unknown() {
			st = f.local.Table(t.Schema, t.Name)
		}
		if st != nil {
			u.schema = st
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

// Learn records what st, found at at ("store/task.go:124"), shows of
// contention.
func (f *Fences) Learn(cfg *Config, st *sqlparse.Statement, at string) {
	clear(f.of)
	for _, l := range st.Locks {
		if l.Select == nil || l.Deleted {
			continue // (rows locked to be deleted by the same statement: nothing is left to race for)
		}
		does := "locks it " + strings.TrimPrefix(l.Strength.String(), "LOCK ")
		if l.Wait == sqlparse.WaitSkipLocked {
			does += " SKIP LOCKED"
		}
		for _, t := range l.Select.Tables {
			// A lock over a join locks the rows of every table it reads,
			// or of those OF names.
			if t.Unknown() || len(l.Of) > 0 && !slices.Contains(l.Of, t.Name) && !slices.Contains(l.Of, t.Alias) {
				continue
			}
			u := f.table(cfg, t)
			if u.lock.Does == "" {
				u.lock = Evidence{at, does}
			}
			if len(l.Select.Tables) == 1 {
				for _, c := range l.Select.Columns {
					u.lockCols[c] = true
				}
				u.addRowKey(pins(l.Select.Where))
				u.learnWhere(l.Select.Where, nil, at)
			}
		}
	}
	for _, name := range st.Filters {
		f.filtered[name] = true
	}
	w := st.Write
	if w == nil {
		return
	}
	if w.Table.Unknown() {
		// A table named at run time (`UPDATE %s ...`) could be any:
		// what it compares counts for names alone.
		for _, c := range w.Where {
			if c.Column != "" && !c.InSubquery && comparison(c.Op) && !skipsUnchanged(w, c) {
				f.filtered[c.Column] = true
			}
		}
		return
	}
	u := f.table(cfg, w.Table)
	for _, a := range w.Sets {
		if flag, seen := u.flags[a.Column]; flag || !seen {
			u.flags[a.Column] = a.Arg == "true" || a.Arg == "false"
		}
		if !slices.Contains(w.ConflictKey, a.Column) && !(a.Copied && len(w.ConflictKey) == 0) {
			// (An upsert's copy of its conflict key, `name =
			// EXCLUDED.name`, refreshes the row's name.)
			u.written[a.Column] = true
			if len(w.Sets) <= 4 {
				u.targeted[a.Column] = true
			}
		}
	}
	u.learnWhere(w.Where, w, at)
}

// learnWhere records what a lock's or a write's WHERE compares, and, for a
// write that pins a row by key (an upsert pins its conflicting row), the
// columns it compare-and-sets or guards on.
func (u *usage) learnWhere(conds []sqlparse.Cond, w *sqlparse.Write, at string) {
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
	// The other conjuncts, and those of a disjunction's branches (owner IS
	// NULL OR expires_at < now()), each against the row the pins pick. A
	// compare with the value written skips a write that changes nothing:
	// it compares nothing read earlier.
	rows := pins(conds) // (and `id = ANY($1)`: a batch by key)
	var each func(conds []sqlparse.Cond)
	each = func(conds []sqlparse.Cond) {
		for _, c := range conds {
			if c.Op == sqlparse.OpOr {
				for _, b := range c.Or {
					each(b)
				}
				continue
			}
			if c.Column == "" || c.InSubquery || !comparison(c.Op) || w != nil && skipsUnchanged(w, c) {
				continue
			}
			u.compared[c.Column] = true
			if !isRange(c.Op) && (c.Value == sqlparse.ValueCaller || c.Op == sqlparse.OpIsNull || c.Op == sqlparse.OpIsNotNull) {
				u.states[c.Column] = true
				if w == nil {
					u.claimed[c.Column] = true
				}
			}
			if w == nil || u.keys[c.Column] || u.lookup[c.Column] || (c.Value != sqlparse.ValueCaller && c.Value != sqlparse.ValueNow) {
				continue
			}
			if w.Kind != sqlparse.KindInsert && !slices.ContainsFunc(rows, func(p string) bool { return p != c.Column }) {
				continue // no other column pins the row: a rename, or a bulk write's filter
			}
			if isRange(c.Op) && len(u.pk) > 0 && slices.ContainsFunc(u.pk, func(k string) bool { return !slices.Contains(pinned, k) }) {
				continue // a sweep over part of the key (record_expiry < $2 in a partition), not a row's guard
			}
			if w.Kind != sqlparse.KindInsert {
				u.addRowKey(slices.DeleteFunc(pins(conds), func(p string) bool { return p == c.Column }))
			}
			switch {
			case assigns(w, c.Column):
				// A compare-and-swap, or a state machine's step (SET
				// status = 'cancelled' ... AND status NOT IN ('done')); a
				// placeholder ruled out (<> $3) may be the value written
				// under another name, so it shows nothing, and neither
				// does a flag's toggle or a mark set once.
				switch {
				case excludesOnly(c.Op) && isParam(c.Arg), toggles(w, c), c.Op == sqlparse.OpIn && c.Arg == "":
					// (`status = ANY($2)`: rows in any of the states
					// given, a sweep's filter.)
				case c.Op == sqlparse.OpIsNull:
					// Set where still NULL: a claim when the module also
					// compares the column with the caller (an owner), else
					// a mark set once (deleted_at, a backfill).
					addEvidence(u.marks, c.Column, Evidence{at, "compare-and-sets " + c.Column})
				default:
					if len(u.cas[c.Column]) < 8 {
						u.cas[c.Column] = append(u.cas[c.Column], guard{Evidence{at, "compare-and-sets " + c.Column}, rows})
					}
				}
			case c.Op == sqlparse.OpEq && c.Value == sqlparse.ValueCaller && (isParam(c.Arg) || c.Arg == ""):
				// The caller's value, not a constant filter (kind =
				// 'x'): an owner, a lease, a version read earlier.
				u.guards[c.Column] = append(u.guards[c.Column], guard{Evidence{at, "compares " + c.Column + " beside the row's key"},
					slices.DeleteFunc(slices.Clone(pinned), func(p string) bool { return p == c.Column })})
			}
		}
	}
	each(conds)
}

// pinsRow reports whether pinned, without col, holds the primary key or a
// unique key of the table; true when the schema knows no key.
func (u *usage) pinsRow(pinned []string, col string) bool {
	if len(u.pk) == 0 {
		return true
	}
	others := slices.DeleteFunc(slices.Clone(pinned), func(p string) bool { return p == col })
	for _, k := range append([][]string{u.pk}, u.uniques...) {
		if containsAll(others, k) {
			return true
		}
	}
	return false
}

// pins returns the columns conds pick rows by: compared by equality (or
// IN) with a value of the caller's, outside any subquery.
func pins(conds []sqlparse.Cond) []string {
	var cols []string
	for _, c := range conds {
		if (c.Op == sqlparse.OpEq || c.Op == sqlparse.OpIn) && c.Value == sqlparse.ValueCaller && c.Column != "" && !c.InSubquery {
			cols = append(cols, c.Column)
		}
	}
	return cols
}

func (u *usage) addRowKey(key []string) {
	if len(key) == 0 || len(u.rowKeys) >= 16 {
		return
	}
	sort.Strings(key)
	if !slices.ContainsFunc(u.rowKeys, func(k []string) bool { return slices.Equal(k, key) }) {
		u.rowKeys = append(u.rowKeys, key)
	}
}

// toggles reports a compare of an assigned column that only flips a flag
// (`SET is_deleted = true ... AND is_deleted = false`) or sets a mark once
// (`SET deleted_at = now() ... AND deleted_at IS NULL`): done twice, it is
// done; no one's value is lost. A claim sets the caller's value (`SET
// worker = $1 ... AND worker IS NULL`).
func toggles(w *sqlparse.Write, c sqlparse.Cond) bool {
	boolean := func(arg string) bool { return arg == "true" || arg == "false" }
	for _, a := range w.Sets {
		if a.Column == c.Column {
			return boolean(c.Arg) && boolean(a.Arg) || c.Op == sqlparse.OpIsNull && !isParam(a.Arg) && !a.Copied
		}
	}
	return false
}

func (u *usage) marksMerge(o *usage) {
	for k, e := range o.marks {
		addEvidence(u.marks, k, e)
	}
	for k, f := range o.flags {
		if seen, ok := u.flags[k]; !ok || seen {
			u.flags[k] = f
		}
	}
}

// isParam reports an Arg that is a placeholder.
func isParam(arg string) bool { return strings.HasPrefix(arg, "$") }

func addEvidence(m map[string]Evidence, col string, e Evidence) {
	if _, ok := m[col]; !ok {
		m[col] = e
	}
}

// skipsUnchanged reports a comparison of an assigned column with the very
// value the write assigns it (`SET c = $1 ... WHERE c <> $1`, `c =
// EXCLUDED.c ... WHERE t.c IS DISTINCT FROM EXCLUDED.c`): the write only
// skips what would change nothing; it compares with no value read earlier.
//
// Only when the write changes nothing else, or only copies the proposed
// row: beside other changes (`SET day = EXCLUDED.day, n = CASE ... END
// WHERE day <> EXCLUDED.day OR n < $3`) the compare decides them.
func skipsUnchanged(w *sqlparse.Write, c sqlparse.Cond) bool {
	if c.Op != sqlparse.OpNe && c.Op != sqlparse.OpDistinct || c.Arg == "" {
		return false
	}
	same := false
	for _, a := range w.Sets {
		switch {
		case a.Column == c.Column && (a.Arg == c.Arg || a.Copied && c.Arg == "excluded."+c.Column):
			same = true
		case !a.Copied:
			return false
		}
	}
	return same
}

func isRange(op sqlparse.Op) bool {
	return op == sqlparse.OpLt || op == sqlparse.OpLe || op == sqlparse.OpGt || op == sqlparse.OpGe
}

// Merge adds what o learned to f: the module's record is the union of its
// packages'. Of two pieces of evidence for the same thing, f's stays.
func (f *Fences) Merge(o *Fences) {
	if o == nil {
		return
	}
	clear(f.of)
	for name, ou := range o.tables {
		u := f.tables[name]
		if u == nil {
			u = newUsage()
			f.tables[name] = u
		}
		if u.lock.Does == "" {
			u.lock = ou.lock
		}
		for k, g := range ou.cas {
			u.cas[k] = append(u.cas[k], g...)
		}
		u.marksMerge(ou)
		for k, g := range ou.guards {
			u.guards[k] = append(u.guards[k], g...)
		}
		for _, m := range [][2]map[string]bool{{u.lockCols, ou.lockCols}, {u.written, ou.written}, {u.targeted, ou.targeted}, {u.compared, ou.compared},
			{u.states, ou.states}, {u.claimed, ou.claimed}, {u.keys, ou.keys}, {u.lookup, ou.lookup}} {
			for k := range m[1] {
				m[0][k] = true
			}
		}
		if u.pk == nil {
			u.pk, u.uniques = ou.pk, ou.uniques
		}
		if u.schema == nil {
			u.schema = ou.schema
		}
		for _, k := range ou.rowKeys {
			u.addRowKey(slices.Clone(k))
		}
	}
	for k := range o.filtered {
		f.filtered[k] = true
	}
}

// Contention is what the module shows of one table's contention.
type Contention struct {
	// Rows is the evidence that its rows are contended: a lock, else the
	// first compare-and-swap or guard; zero when nothing shows it.
	Rows Evidence
	// Columns are the contended columns, each with its evidence.
	Columns map[string]Evidence
	// Guards are the columns statements compare with the caller's value
	// beside the row's key, contended or not: what a fix may compare.
	Guards []string
	// Fences are the contended columns some statement compares as a
	// fence (compare-and-sets, or guards on beside the key), but for
	// counters, compared only by range (a capacity: `active_tasks < $2`).
	// A step of any other column (`SET n = n + 1`) is computed on the row
	// as written and loses no one's write; a step of a fence (`range_id =
	// range_id + 1`) takes the row from whoever holds it. (`COALESCE($1,
	// worker_id)` is no step: it sets the column when $1 is given.)
	Fences map[string]bool
	// Keys are what the statements that show the contention pick a row
	// by, its state left out: a write picking rows by none of them (a
	// purge of a room's events by room) writes no row they race for.
	Keys [][]string
	// Named are the version and owner columns (by the configured names)
	// that statements compare, for a table with no evidence either way.
	Named []string
}

// Contended reports whether the module shows the table's rows contended.
func (c Contention) Contended() bool { return c.Rows.Does != "" }

// Of returns what the module shows of table's contention.
//
// The contended columns are the ones compare-and-set, the guards some
// statement also writes, the columns locks read, and, once the rows are
// shown contended, their state: the columns written and compared for
// (in)equality by a write or a lock (a claim's `state = 'available'`), or
// bearing a configured state, owner or version name. Names decide nothing
// alone: where nothing shows the rows contended, Named lists the version
// and owner columns the statements compare, for the rule to say it judged
// by name.
func (f *Fences) Of(cfg *Config, table string) Contention {
	if f == nil || f.tables[table] == nil {
		return Contention{}
	}
	if con, ok := f.of[table]; ok {
		return con
	}
	if f.of == nil {
		f.of = map[string]Contention{}
	}
	con := f.contention(cfg, f.tables[table])
	f.of[table] = con
	return con
}

func (f *Fences) contention(cfg *Config, u *usage) Contention {
	var con Contention
	con.Columns = map[string]Evidence{}
	state := func(c string) bool { return !u.keys[c] && !u.lookup[c] }
	for _, c := range sortedKeys(u.cas) {
		if !state(c) {
			continue
		}
		// Where the schema (or the package's own CREATE TABLE) names
		// the keys, a compare-and-swap pins one: pinned by a parent's id
		// alone (`WHERE user_id = $2 AND status = $3`), it is a bulk
		// transition.
		for _, g := range u.cas[c] {
			if u.pinsRow(g.pins, c) {
				addEvidence(con.Columns, c, g.Evidence)
				break
			}
		}
	}
	for _, c := range sortedKeys(u.marks) {
		if state(c) && (len(u.guards[c]) > 0 || cfg.OwnerColumns.Has(c)) {
			addEvidence(con.Columns, c, u.marks[c])
		}
	}
	for _, c := range sortedKeys(u.guards) {
		if !state(c) || u.flags[c] {
			continue // (a flag compared beside the key is a filter: `AND is_deleted = $6`)
		}
		con.Guards = append(con.Guards, c)
		if !u.targeted[c] {
			continue // (written only by saves of the whole row: a tenant's id compared to scope the write)
		}
		// A guard beside a key the module never writes: an owner, a
		// lease, a version of the row that key names. Beside columns a
		// save rewrites with the rest of the row (`DELETE ... WHERE
		// user_id = $1 AND entry_id = $2`), nothing tells key from guard.
		for _, g := range u.guards[c] {
			if slices.ContainsFunc(g.pins, func(p string) bool { return !u.written[p] }) {
				addEvidence(con.Columns, c, g.Evidence)
				break
			}
		}
	}
	for c := range con.Columns {
		if u.states[c] {
			if con.Fences == nil {
				con.Fences = map[string]bool{}
			}
			con.Fences[c] = true
		}
	}
	// The rows are contended: locked, or claimed and fenced by a column.
	con.Rows = u.lock
	if con.Rows.Does == "" {
		for _, c := range sortedKeys(con.Columns) {
			con.Rows = con.Columns[c]
			break
		}
	}
	if con.Rows.Does != "" {
		for _, k := range u.rowKeys {
			if k = slices.DeleteFunc(slices.Clone(k), func(c string) bool { return u.written[c] }); len(k) > 0 {
				con.Keys = append(con.Keys, k)
			}
		}
		// What a lock reads is what it protects, when statements compare
		// it as state (a status, not a config value the lock reads along).
		// And the row's state is contended with it: what the locks pick
		// rows by (a claim's `state = 'available'`), and the configured
		// state, owner and version names.
		for c := range u.lockCols {
			if c != "*" && state(c) && u.written[c] && u.states[c] {
				addEvidence(con.Columns, c, u.lock)
			}
		}
		for c := range u.written {
			if state(c) && (u.claimed[c] || namedState(cfg, u.schema, c)) {
				addEvidence(con.Columns, c, con.Rows)
			}
		}
		return con
	}
	for c := range u.written {
		// A version some statement compares; an owner a write compares
		// beside the key (not a filter: `WHERE owner_id = $1` lists).
		if (cfg.FenceColumns.Has(c) && (u.compared[c] || f.filtered[c]) || cfg.OwnerColumns.Has(c) && len(u.guards[c]) > 0) && namedState(cfg, u.schema, c) {
			con.Named = append(con.Named, c)
		}
	}
	sort.Strings(con.Named)
	return con
}

// namedState reports a column whose configured name makes it state, and
// whose type in the schema, when known, does not say otherwise: a version
// holds a number or an opaque token (not a `version text` holding "1.2.3"
// or an enum of editions), a state is no blob (bytea, json).
func namedState(cfg *Config, t *catalog.Table, name string) bool {
	var col *catalog.Column
	if t != nil {
		col = t.Column(name)
	}
	typ := ""
	if col != nil {
		typ = col.Type
	}
	switch {
	case col != nil && col.Array:
		return false
	case cfg.FenceColumns.Has(name):
		return col == nil || numericType(typ) || typ == "uuid" || typ == "bytea"
	case cfg.OwnerColumns.Has(name):
		return true
	case cfg.StateColumns.Has(name):
		return col == nil || typ != "bytea" && typ != "json" && typ != "jsonb"
	}
	return false
}

// named returns the version and owner names a write of a table named at
// run time assigns that some statement compares.
func (f *Fences) named(cfg *Config, w *sqlparse.Write) []string {
	var cols []string
	for _, a := range w.Sets {
		if (cfg.FenceColumns.Has(a.Column) || cfg.OwnerColumns.Has(a.Column)) && f != nil && f.filtered[a.Column] {
			cols = append(cols, a.Column)
		}
	}
	return cols
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// fencedBy reports whether the WHERE of w compares, on the target row, a
// column that makes the write a compare-and-swap (RULES.md "Fencing").
func fencedBy(cfg *Config, con Contention, w *sqlparse.Write, conds []sqlparse.Cond) bool {
	for _, c := range conds {
		if isFence(cfg, con, w, c) {
			return true
		}
	}
	return false
}

func isFence(cfg *Config, con Contention, w *sqlparse.Write, c sqlparse.Cond) bool {
	if c.InSubquery {
		return false
	}
	if c.Op == sqlparse.OpOr {
		for _, branch := range c.Or {
			if !fencedBy(cfg, con, w, branch) {
				return false
			}
		}
		return len(c.Or) > 0
	}
	if c.Column == "" || c.Value == sqlparse.ValueColumn || c.Value == sqlparse.ValueOther || !comparison(c.Op) || skipsUnchanged(w, c) {
		return false
	}
	// A contended column compared on the row, whatever its name. (`<> $1`
	// beside `SET c = $1` is no fence: skipsUnchanged, above.)
	if _, ok := con.Columns[c.Column]; ok {
		return true
	}
	switch {
	case cfg.OwnerColumns.Has(c.Column):
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
		return true
	case w.Kind == sqlparse.KindDelete && (cfg.StateColumns.Has(c.Column) || cfg.FenceColumns.Has(c.Column)):
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
