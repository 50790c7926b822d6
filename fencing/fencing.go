// Package fencing is what a package's (or a whole module's) statements
// show of how its writers keep racing processes from overwriting each
// other: compare-and-swap columns, claims and their holders, leases,
// advisory locks, learned per table (Fences), with what the module tells
// beyond its statements (Known: its schema, the coordination
// .dsqllint.yaml declares). DSQL003 weighs a write against it. It reads
// parsed SQL only.
package fencing

import (
	"slices"
	"sort"
	"strings"

	"github.com/dsqllint/dsqllint/catalog"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// Fences records the fences the statements of a package (or of a whole
// module) show, per table: the protocols by which writers keep racing
// processes from overwriting each other. DSQL003 reports a write that
// bypasses one of them, and only that.
//
// What counts is what a statement does, never what a column is called:
//   - a compare-and-swap: a write that picks a row by its key and compares
//     a column it assigns, with a value read earlier or the state it moves
//     from (SET range_id = $1 WHERE shard_id = $2 AND range_id = $3; SET
//     state = 'running' WHERE id = $1 AND state = 'pending');
//   - a claim: a write that sets a row's owner or lease where it is free
//     or expired (SET worker_id = $1 ... AND (worker_id IS NULL OR
//     expires_at < now())), a SKIP LOCKED claim, or a guarded upsert —
//     with holders that compare the owner beside the row's key (a
//     heartbeat: WHERE id = $1 AND worker_id = $2);
//   - a lease of another table that writes check (AND EXISTS (SELECT 1
//     FROM leases WHERE resource_id = $3 AND worker_id = $4));
//   - an advisory lock taken on the table's rows (pg_try_advisory_lock(id)
//     in a SELECT of them).
//
// Not fences: a filter (a SELECT's WHERE), a comparison with the very value
// a write assigns, a mark set once (deleted_at IS NULL), a flag's toggle, an
// IS NOT NULL test, a rename, a key.
type Fences struct {
	Tables map[string]*Usage
	// Filtered are the names reads compare after their WHERE, whatever
	// the table: what tells a row's state from its payload.
	Filtered map[string]bool
	// stated are those of them reads compare as a state (=, IN, IS).
	stated map[string]bool
	// of caches Of's answers until the next Learn or Merge.
	of map[string]Protocols
	// Local are the tables the package's own Go strings create, for
	// their keys and triggers where the project's schema does not know
	// them.
	Local *catalog.Catalog
}

// Evidence is one statement that shows a fence: where it is
// ("store/task.go:124") and what it does ("compare-and-sets range_id").
type Evidence struct {
	At, Does string
}

func (e Evidence) String() string {
	if e.At == "" {
		return "a statement " + e.Does
	}
	return e.At + " " + e.Does
}

// guard is a statement's comparison of a column beside the columns that
// pin the row.
type guard struct {
	Evidence
	pins []string
}

// leaseUse is a write guarded by a lease row of another table.
type leaseUse struct {
	Evidence
	table  string   // the lease table
	owners []string // its columns compared with the caller's value
	timed  bool     // the guard also compares a time (expires_at > now())
	sets   []string // what the guarded write assigns
}

type Usage struct {
	CAS      map[string][]guard    // columns some write compare-and-sets, and what it pins
	claims   map[string][]Evidence // columns a claim sets (an owner, a lease, a running state)
	Holders  map[string][]guard    // columns compared with the caller's value beside the row's key
	expiry   Columns               // columns compared as a lease's time (expires_at < now())
	guarded  map[string][]string   // per column a holder compares, what its writes assign
	leases   []leaseUse            // writes that check a lease row of another table
	skip     Evidence              // the first SKIP LOCKED lock of the table's rows
	skipBy   Columns               // the columns SKIP LOCKED locks pick rows by (state = 'available')
	skipSets bool                  // a statement sets columns on the rows it locks SKIP LOCKED
	holds    Columns               // columns a claim sets to the caller's value (an owner, a lease time)
	states   Columns               // columns a WHERE compares as a state: =, <>, IN, IS NULL
	pinSets  [][]string            // what the writes pick rows by, for telling a row from a group
	multi    int                   // the writes that assign two columns or more
	inMulti  map[string]int        // how many of them assign each column
	advisory Evidence              // the first advisory lock taken on its rows
	flags    map[string]bool       // columns the writes set to true or false only
	marks    map[string]bool       // columns set by writes to a time or a constant only
	written  Columns               // assigned by an UPDATE or ON CONFLICT DO UPDATE
	Compared Columns               // compared by a write's or a lock's WHERE
	rowKeys  [][]string            // what the fence statements pick a row by
	pk       []string              // the schema's primary key
	keys     Columns               // its columns
	uniques  [][]string            // the schema's other unique keys
	lookup   Columns               // columns of a unique key some statement picks a row by, that key alone
	schema   *catalog.Table
}

// newUsage returns an empty record. Its maps are made when first written
// (put): a table a package only reads, or only inserts into, needs few of
// the fifteen, and a module has thousands of tables.
func newUsage() *Usage { return &Usage{} }

// Columns is a set of a table's column names, in the order first seen.
// A table has few: a slice is a fraction of a map's smallest size, and a
// table's record holds eight such sets, for each of a module's tables.
type Columns []string

// Has reports whether c is in s.
func (s Columns) Has(c string) bool { return slices.Contains(s, c) }

func (s *Columns) add(c string) {
	if !slices.Contains(*s, c) {
		*s = append(*s, c)
	}
}

// put sets m[k] = v, making m first.
func put[V any](m *map[string]V, k string, v V) {
	if *m == nil {
		*m = map[string]V{}
	}
	(*m)[k] = v
}

// NewFences returns an empty record.
func NewFences() *Fences {
	return &Fences{Tables: map[string]*Usage{}, Filtered: map[string]bool{}, stated: map[string]bool{}}
}

// UseKeysOf makes the keys and triggers of the tables cat knows count
// where the project's schema does not know the table: a package that
// creates its tables in Go constants names their keys there.
func (f *Fences) UseKeysOf(cat *catalog.Catalog) {
	f.Local = cat
	for _, t := range cat.Tables() {
		if f.Tables[t.Name] == nil && len(t.PrimaryKey) > 0 {
			u := newUsage()
			u.schema, u.pk, u.uniques = t, t.PrimaryKey, t.Uniques
			for _, c := range t.PrimaryKey {
				u.keys.add(c)
			}
			f.Tables[t.Name] = u
		}
	}
}

func (f *Fences) table(k *Known, t sqlparse.Table) *Usage {
	u := f.Tables[t.Name]
	if u == nil {
		u = newUsage()
		st := k.Table(t)
		if st == nil && f.Local != nil && !t.Unknown() {
			st = f.Local.Table(t.Schema, t.Name)
		}
		if st != nil {
			u.schema, u.pk, u.uniques = st, st.PrimaryKey, st.Uniques
			for _, c := range st.PrimaryKey {
				u.keys.add(c)
			}
		}
		f.Tables[t.Name] = u
	}
	return u
}

// Learn records what st, found at at ("store/task.go:124"), shows of the
// fences of its tables.
func (f *Fences) Learn(k *Known, st *sqlparse.Statement, at string) {
	clear(f.of)
	for _, name := range st.Filters {
		f.Filtered[name] = true
	}
	for _, name := range st.States {
		f.stated[name] = true
	}
	if AdvisoryCall(st) != "" {
		// SELECT ... pg_try_advisory_lock(j.id) FROM jobs j: a queue
		// that claims its rows with advisory locks.
		for _, t := range st.Reads {
			if u := f.table(k, t); u.advisory.Does == "" {
				u.advisory = Evidence{at, "claims its rows with " + AdvisoryCall(st)}
			}
		}
	}
	for _, l := range st.Locks {
		if l.Select == nil || l.Deleted || len(l.Select.Tables) != 1 || l.Select.Tables[0].Unknown() {
			continue
		}
		u := f.table(k, l.Select.Tables[0])
		for _, c := range l.Select.Where {
			if c.Column != "" && !c.InSubquery && Comparison(c.Op) {
				u.Compared.add(c.Column)
				if !IsRange(c.Op) {
					u.states.add(c.Column)
				}
			}
		}
		if l.Wait == sqlparse.WaitSkipLocked && l.Strength != sqlparse.ForShare && l.Strength != sqlparse.ForKeyShare {
			if u.skip.Does == "" {
				u.skip = Evidence{at, "claims its rows FOR UPDATE SKIP LOCKED"}
			}
			for _, c := range l.Select.Where {
				if c.Column != "" && !c.InSubquery && (c.Op == sqlparse.OpEq || c.Op == sqlparse.OpIn) && c.Value == sqlparse.ValueCaller {
					u.skipBy.add(c.Column)
				}
			}
		}
	}
	w := st.Write
	if w == nil || w.Table.Unknown() {
		return
	}
	u := f.table(k, w.Table)
	for _, a := range w.Sets {
		if flag, seen := u.flags[a.Column]; flag || !seen {
			put(&u.flags, a.Column, a.Arg == "true" || a.Arg == "false")
		}
		if mark, seen := u.marks[a.Column]; mark || !seen {
			put(&u.marks, a.Column, a.Arg == "" && !a.Copied && !a.SelfRef && !a.Step || strings.HasPrefix(a.Arg, "'"))
		}
		if !slices.Contains(w.ConflictKey, a.Column) && !(a.Copied && len(w.ConflictKey) == 0) {
			u.written.add(a.Column)
		}
	}
	if claimsOwnRows(st, w) {
		// WITH c AS (SELECT id ... FOR UPDATE SKIP LOCKED) UPDATE jobs SET
		// state = 'running', worker = $1 FROM c ...: the claim itself.
		u.skipSets = true
		for _, a := range w.Sets {
			put(&u.claims, a.Column, appendEvidence(u.claims[a.Column], Evidence{at, "claims the row (sets " + a.Column + " on the rows it locks SKIP LOCKED)"}))
			if IsParam(a.Arg) || a.Copied {
				u.holds.add(a.Column)
			}
		}
	}
	if len(w.Sets) >= 2 && w.Kind != sqlparse.KindDelete {
		u.multi++
		for _, a := range w.Sets {
			put(&u.inMulti, a.Column, u.inMulti[a.Column]+1)
		}
	}
	u.learnWrite(w, at)
}

// learnWrite records what a write's WHERE compares, and, for a write that
// pins a row by key (an upsert pins its conflicting row), the columns it
// compare-and-sets, claims or checks as a holder.
func (u *Usage) learnWrite(w *sqlparse.Write, at string) {
	pinned := Pins(w.Where)
	if byParam := ParamPins(w.Where); len(byParam) > 0 && len(u.pinSets) < 32 {
		sort.Strings(byParam)
		if !slices.ContainsFunc(u.pinSets, func(k []string) bool { return slices.Equal(k, byParam) }) {
			u.pinSets = append(u.pinSets, byParam)
		}
	}
	for _, k := range u.uniques {
		// The key, and beside it at most primary key columns (a shard).
		covers := !slices.ContainsFunc(k, func(c string) bool { return !slices.Contains(pinned, c) })
		extra := slices.ContainsFunc(pinned, func(c string) bool { return !slices.Contains(k, c) && !u.keys.Has(c) })
		if covers && !extra {
			for _, c := range k {
				u.lookup.add(c)
			}
		}
	}
	upsert := w.Kind == sqlparse.KindInsert
	rowPinned := func(col string) bool { return upsert || u.pinsRow(pinned, col) }
	claimed := false // the write sets its row's owner or lease under a guard
	var each func(conds []sqlparse.Cond)
	each = func(conds []sqlparse.Cond) {
		for _, c := range conds {
			if c.Op == sqlparse.OpOr {
				for _, b := range c.Or {
					each(b)
				}
				continue
			}
			if c.Column == "" || c.InSubquery || !Comparison(c.Op) || SkipsUnchanged(w, c) {
				continue
			}
			u.Compared.add(c.Column)
			if !IsRange(c.Op) {
				u.states.add(c.Column)
			}
			if u.keys.Has(c.Column) || u.lookup.Has(c.Column) || !rowPinned(c.Column) {
				continue
			}
			if !upsert && !slices.ContainsFunc(pinned, func(p string) bool { return p != c.Column }) {
				continue // no other column pins the row: a rename, or a bulk write's filter
			}
			a := assignOf(w, c.Column)
			switch {
			case a != nil && c.Op == sqlparse.OpIsNull:
				// Set where still NULL: a claim when it sets the caller's
				// value (SET worker = $1 ... AND worker IS NULL), a mark
				// set once otherwise (deleted_at = now()).
				if IsParam(a.Arg) || a.Copied {
					put(&u.claims, c.Column, appendEvidence(u.claims[c.Column], Evidence{at, "claims the row (sets " + c.Column + " where it is NULL)"}))
					u.holds.add(c.Column)
					claimed = true
				}
			case a != nil && IsRange(c.Op) && (c.Value == sqlparse.ValueNow || c.Value == sqlparse.ValueCaller):
				// A lease taken over once it ran out (SET worker = $1,
				// expires_at = $2 ... AND expires_at < now()).
				u.expiry.add(c.Column)
				claimed = true
			case a != nil && c.Op != sqlparse.OpIsNotNull && !toggles(w, c) && !(ExcludesOnly(c.Op) && IsParam(c.Arg)) &&
				!(c.Op == sqlparse.OpIn && c.Arg == "" && !u.pinsRow(pinned, c.Column)) && c.Value != sqlparse.ValueColumn &&
				(c.Value != sqlparse.ValueOther || c.Op == sqlparse.OpIsNull):
				// A compare-and-swap, or a state machine's step (SET
				// status = 'cancelled' ... AND status NOT IN ('done')).
				if len(u.CAS[c.Column]) < 8 {
					put(&u.CAS, c.Column, append(u.CAS[c.Column], guard{Evidence{at, sameDoes(u.CAS[c.Column], "compare-and-sets ", c.Column, "")}, pinned}))
				}
				u.addRowKey(slices.DeleteFunc(slices.Clone(pinned), func(p string) bool { return p == c.Column }))
			case a == nil && c.Op == sqlparse.OpEq && c.Value == sqlparse.ValueCaller && (IsParam(c.Arg) || c.Arg == ""):
				// The caller's value beside the key: an owner, a lease, a
				// version read earlier — or a tenant's id, which no claim
				// ever sets.
				if len(u.Holders[c.Column]) < 8 {
					put(&u.Holders, c.Column, append(u.Holders[c.Column], guard{Evidence{at, sameDoes(u.Holders[c.Column], "compares ", c.Column, " with the caller's beside the row's key")},
						slices.DeleteFunc(slices.Clone(pinned), func(p string) bool { return p == c.Column })}))
				}
				for _, s := range w.Sets {
					if len(u.guarded[c.Column]) < 32 && !slices.Contains(u.guarded[c.Column], s.Column) {
						put(&u.guarded, c.Column, append(u.guarded[c.Column], s.Column))
					}
				}
			case a == nil && IsRange(c.Op) && (c.Value == sqlparse.ValueNow || c.Value == sqlparse.ValueCaller) && w.Kind != sqlparse.KindDelete:
				u.expiry.add(c.Column) // a holder renewing while its lease lasts
			}
		}
	}
	each(w.Where)
	// A MySQL-style upsert whose every assignment is a CASE over the
	// row's lease (worker_id = CASE WHEN expires_at <= ? THEN
	// VALUES(worker_id) ELSE worker_id END) claims the row; one CASE among
	// plain assignments computes a value.
	if len(w.Sets) >= 2 && !slices.ContainsFunc(w.Sets, func(a sqlparse.Assign) bool {
		return !slices.ContainsFunc(a.Guards, func(g string) bool { return g != a.Column })
	}) {
		claimed = true
	}
	if claimed {
		for _, a := range w.Sets {
			if IsParam(a.Arg) || a.Copied || len(a.Guards) > 0 {
				put(&u.claims, a.Column, appendEvidence(u.claims[a.Column], Evidence{at, "claims the row (sets " + a.Column + ")"}))
				u.holds.add(a.Column)
			}
		}
		u.addRowKey(slices.Clone(pinned))
	}
	for _, g := range w.Guards {
		if g.Not || g.Table.Name == w.Table.Name {
			continue
		}
		l := leaseUse{Evidence: Evidence{at, "checks the lease in " + g.Table.Name}, table: g.Table.Name}
		for _, c := range g.Where {
			switch {
			case c.InSubquery || c.Column == "":
			case c.Op == sqlparse.OpEq && c.Value == sqlparse.ValueCaller && IsParam(c.Arg):
				l.owners = append(l.owners, c.Column)
			case IsRange(c.Op) && (c.Value == sqlparse.ValueNow || c.Value == sqlparse.ValueCaller):
				l.timed = true
			}
		}
		if len(l.owners) == 0 || len(u.leases) >= 16 {
			continue
		}
		for _, a := range w.Sets {
			l.sets = append(l.sets, a.Column)
		}
		u.leases = append(u.leases, l)
		u.addRowKey(slices.Clone(pinned))
	}
}

// ParamPins returns the columns conds pin by a parameter (not a constant
// filter): what a write picks its rows by.
func ParamPins(conds []sqlparse.Cond) []string {
	var cols []string
	for _, c := range conds {
		if (c.Op == sqlparse.OpEq || c.Op == sqlparse.OpIn) && c.Value == sqlparse.ValueCaller && c.Column != "" && !c.InSubquery && (IsParam(c.Arg) || c.Op == sqlparse.OpIn) {
			cols = append(cols, c.Column)
		}
	}
	return cols
}

// claimsOwnRows reports a write that sets columns on rows it picks with a
// FOR UPDATE SKIP LOCKED of its own table, in the same statement.
func claimsOwnRows(st *sqlparse.Statement, w *sqlparse.Write) bool {
	for _, l := range st.Locks {
		if l.Wait == sqlparse.WaitSkipLocked && l.Select != nil && len(l.Select.Tables) == 1 && l.Select.Tables[0].Name == w.Table.Name {
			return true
		}
	}
	return false
}

func assignOf(w *sqlparse.Write, col string) *sqlparse.Assign {
	for i := range w.Sets {
		if w.Sets[i].Column == col {
			return &w.Sets[i]
		}
	}
	return nil
}

// sameDoes spells what the guards of one column do, made once per column.
func sameDoes(gs []guard, before, col, after string) string {
	if len(gs) > 0 {
		return gs[0].Does
	}
	return before + col + after
}

func appendEvidence(es []Evidence, e Evidence) []Evidence {
	if len(es) >= 8 || slices.Contains(es, e) {
		return es
	}
	return append(es, e)
}

// AdvisoryCall names the advisory lock function a statement calls, or "".
func AdvisoryCall(st *sqlparse.Statement) string {
	if st.Facts == nil {
		return ""
	}
	for _, c := range st.Facts.Calls {
		if sqlparse.IsAdvisoryLock(c.Name) {
			return c.Name
		}
	}
	return ""
}

// group reports a compare-and-swap that picks rows by fewer columns than
// other writes of the table pick a row by: a transition of a group.
//
// Columns some write assigns (a state, an owner) are no part of what picks
// a row, whichever write compares them.
func (u *Usage) group(pins []string, col string) bool {
	name := func(k []string) []string {
		return slices.DeleteFunc(slices.Clone(k), func(p string) bool { return p == col || u.written.Has(p) })
	}
	own := name(pins)
	if len(own) == 0 {
		return false
	}
	return slices.ContainsFunc(u.pinSets, func(k []string) bool {
		k = name(k)
		return len(k) > len(own) && ContainsAll(k, own)
	})
}

// bookkeeping reports a column every write of several columns sets (an
// updated_at) that no statement compares as a state or a lease's time:
// written with whatever else changes, it is nobody's state.
func (u *Usage) bookkeeping(col string) bool {
	return u.multi >= 3 && u.inMulti[col] == u.multi && !u.states.Has(col) && !u.expiry.Has(col) && !u.holds.Has(col)
}

// pinsRow reports whether pinned, without col, holds the primary key or a
// unique key of the table; true when the schema knows no key.
func (u *Usage) pinsRow(pinned []string, col string) bool {
	if len(u.pk) == 0 {
		return true
	}
	others := slices.DeleteFunc(slices.Clone(pinned), func(p string) bool { return p == col })
	for _, k := range append([][]string{u.pk}, u.uniques...) {
		if ContainsAll(others, k) {
			return true
		}
	}
	return false
}

// Pins returns the columns conds pick rows by: compared by equality (or
// IN) with a value of the caller's, outside any subquery.
func Pins(conds []sqlparse.Cond) []string {
	var cols []string
	for _, c := range conds {
		if (c.Op == sqlparse.OpEq || c.Op == sqlparse.OpIn) && c.Value == sqlparse.ValueCaller && c.Column != "" && !c.InSubquery {
			cols = append(cols, c.Column)
		}
	}
	return cols
}

func (u *Usage) addRowKey(key []string) {
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
			return boolean(c.Arg) && boolean(a.Arg) || c.Op == sqlparse.OpIsNull && !IsParam(a.Arg) && !a.Copied
		}
	}
	return false
}

// IsParam reports an Arg that is a placeholder.
func IsParam(arg string) bool { return strings.HasPrefix(arg, "$") }

// SkipsUnchanged reports a comparison of an assigned column with the very
// value the write assigns it (`SET c = $1 ... WHERE c <> $1`, `c =
// EXCLUDED.c ... WHERE t.c IS DISTINCT FROM EXCLUDED.c`): the write only
// skips what would change nothing; it compares with no value read earlier.
//
// Only when the write changes nothing else, or only copies the proposed
// row: beside other changes (`SET day = EXCLUDED.day, n = CASE ... END
// WHERE day <> EXCLUDED.day OR n < $3`) the compare decides them.
func SkipsUnchanged(w *sqlparse.Write, c sqlparse.Cond) bool {
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

func IsRange(op sqlparse.Op) bool {
	return op == sqlparse.OpLt || op == sqlparse.OpLe || op == sqlparse.OpGt || op == sqlparse.OpGe
}

// Merge adds what o learned to f: the module's record is the union of its
// packages'. Of two pieces of evidence for the same thing, f's stays. f
// takes over o's records of the tables it knew nothing of (most of a
// module's tables are one package's): o is not to be used afterwards.
func (f *Fences) Merge(o *Fences) {
	if o == nil {
		return
	}
	clear(f.of)
	for name, ou := range o.Tables {
		u := f.Tables[name]
		if u == nil {
			f.Tables[name] = ou
			continue
		}
		for k, g := range ou.CAS {
			put(&u.CAS, k, append(u.CAS[k], g...))
		}
		for k, g := range ou.Holders {
			put(&u.Holders, k, append(u.Holders[k], g...))
		}
		for k, es := range ou.claims {
			for _, e := range es {
				put(&u.claims, k, appendEvidence(u.claims[k], e))
			}
		}
		u.leases = append(u.leases, ou.leases...)
		if u.skip.Does == "" {
			u.skip = ou.skip
		}
		if u.advisory.Does == "" {
			u.advisory = ou.advisory
		}
		u.skipSets = u.skipSets || ou.skipSets
		for _, k := range ou.pinSets {
			if len(u.pinSets) < 32 && !slices.ContainsFunc(u.pinSets, func(x []string) bool { return slices.Equal(x, k) }) {
				u.pinSets = append(u.pinSets, k)
			}
		}
		u.multi += ou.multi
		for k, n := range ou.inMulti {
			put(&u.inMulti, k, u.inMulti[k]+n)
		}
		for _, m := range []struct {
			to   *map[string]bool
			from map[string]bool
		}{{&u.flags, ou.flags}, {&u.marks, ou.marks}} {
			for k, v := range m.from {
				if seen, ok := (*m.to)[k]; !ok || seen {
					put(m.to, k, v) // true only while every package's writes agree
				}
			}
		}
		for k, cols := range ou.guarded {
			for _, c := range cols {
				if !slices.Contains(u.guarded[k], c) {
					put(&u.guarded, k, append(u.guarded[k], c))
				}
			}
		}
		for _, m := range []struct{ to, from *Columns }{{&u.written, &ou.written}, {&u.Compared, &ou.Compared},
			{&u.expiry, &ou.expiry}, {&u.keys, &ou.keys}, {&u.lookup, &ou.lookup}, {&u.skipBy, &ou.skipBy},
			{&u.holds, &ou.holds}, {&u.states, &ou.states}} {
			for _, k := range *m.from {
				m.to.add(k)
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
	for k := range o.Filtered {
		f.Filtered[k] = true
	}
	for k := range o.stated {
		f.stated[k] = true
	}
	if f.Local == nil {
		f.Local = o.Local
	}
}

// Protocols are the fences the module shows on one table.
type Protocols struct {
	// CAS are the columns writes compare-and-set by the row's key: a
	// version, an epoch, a state machine's state.
	CAS map[string]Evidence
	// Owners are the columns a claim sets to its holder and holders
	// compare beside the row's key; Expiry the lease times compared.
	Owners map[string]Evidence
	Expiry []string
	// Lease is a lease row of another table that writes of this one
	// check (the first such write).
	Lease *Lease
	// Skip and Advisory are claims of the table's rows by a FOR UPDATE
	// SKIP LOCKED or by advisory locks.
	Skip, Advisory Evidence
	// State are the columns of a claimed row its holders write and
	// statements compare (a status, a schedule): what a holder's claim
	// protects.
	State map[string]Evidence
	// Keys are what the fence statements pick a row by.
	Keys [][]string
}

// Lease is a lease of another table that writes check.
type Lease struct {
	Evidence
	Table  string
	Owners []string
	Timed  bool
}

// Claimed reports a table whose rows processes claim: an owner, a lease,
// a SKIP LOCKED or an advisory claim.
func (p Protocols) Claimed() bool {
	return len(p.Owners) > 0 || p.Lease != nil || p.Skip.Does != "" || p.Advisory.Does != ""
}

// Any reports a table with some fence.
func (p Protocols) Any() bool { return len(p.CAS) > 0 || p.Claimed() }

// Claim names the evidence of the table's Claim, for messages.
func (p Protocols) Claim() Evidence {
	for _, c := range SortedKeys(p.Owners) {
		return p.Owners[c]
	}
	switch {
	case p.Lease != nil:
		return p.Lease.Evidence
	case p.Skip.Does != "":
		return p.Skip
	}
	return p.Advisory
}

// Reader returns f for one goroutine: it shares f's records and keeps
// its own cache of Of's answers. f is not to change while it is read.
func (f *Fences) Reader() *Fences {
	if f == nil {
		return nil
	}
	r := *f
	r.of = nil
	return &r
}

// Of returns the fences the module shows on table.
func (f *Fences) Of(k *Known, table string) Protocols {
	if f == nil {
		return Protocols{}
	}
	u := f.Tables[table]
	if u == nil {
		return f.declared(k, table, Protocols{})
	}
	if p, ok := f.of[table]; ok {
		return p
	}
	if f.of == nil {
		f.of = map[string]Protocols{}
	}
	p := f.declared(k, table, f.protocols(k, u))
	f.of[table] = p
	return p
}

func (f *Fences) protocols(k *Known, u *Usage) Protocols {
	p := Protocols{Advisory: u.advisory} // its maps made when first written (put): most tables have no fence
	// A SKIP LOCKED lock is a claim when the rows it picks are moved to
	// another state (state = 'available' set to 'running'), in the same
	// statement or another: a lock taken only as a mutex claims nothing,
	// nor one whose rows are only marked (to_delete = true), which leaves
	// no holder once the transaction ends.
	if u.skip.Does != "" && (u.skipSets || slices.ContainsFunc(u.skipBy, func(c string) bool { return u.written.Has(c) && !u.keys.Has(c) && !u.flags[c] })) {
		p.Skip = u.skip
	}
	state := func(c string) bool { return !u.keys.Has(c) && !u.lookup.Has(c) }
	for _, c := range SortedKeys(u.CAS) {
		if !state(c) || u.flags[c] {
			continue
		}
		for _, g := range u.CAS[c] {
			// Where the schema names the keys, a compare-and-swap pins
			// one: by a parent's id alone (WHERE user_id = $2 AND status
			// = $3) it is a bulk transition. So it is where other writes
			// pick rows by more than it does (project_id, where they pick
			// by id and project_id): a group, not a row.
			if u.pinsRow(g.pins, c) && !u.group(g.pins, c) {
				put(&p.CAS, c, g.Evidence)
				break
			}
		}
	}
	for _, c := range SortedKeys(u.Holders) {
		// An owner: a claim sets it, holders compare it. A version a
		// write compares beside the key is no owner, nor a tenant's id,
		// a flag or a soft-delete mark.
		if claims := u.claims[c]; state(c) && !u.flags[c] && len(claims) > 0 && u.holds.Has(c) && !timeColumn(u.schema, c) {
			put(&p.Owners, c, claims[0])
		}
	}
	for _, c := range slices.Sorted(slices.Values(u.expiry)) {
		if len(u.claims[c]) > 0 || len(p.Owners) > 0 {
			p.Expiry = append(p.Expiry, c)
		}
	}
	if len(u.leases) > 0 {
		l := u.leases[0]
		if lt := f.Tables[l.table]; l.timed || lt != nil && slices.ContainsFunc(l.owners, func(c string) bool { return len(lt.Holders[c]) > 0 && len(lt.claims[c]) > 0 }) {
			p.Lease = &Lease{Evidence: l.Evidence, Table: l.table, Owners: l.owners, Timed: l.timed}
		}
	}
	if p.Claimed() {
		// What the claim protects: what a claim sets, and what a holder
		// writes, where statements compare it (a status, a schedule), not
		// payload only written and read back.
		protects := map[string]Evidence{}
		for c, es := range u.claims {
			protects[c] = es[0]
		}
		if p.Skip.Does != "" {
			for _, c := range u.skipBy {
				if _, ok := protects[c]; !ok && u.written.Has(c) {
					protects[c] = p.Skip // the state the claim moves its rows from
				}
			}
		}
		for owner := range p.Owners {
			for _, c := range u.guarded[owner] {
				if _, ok := protects[c]; !ok {
					protects[c] = p.Claim()
				}
			}
		}
		for _, l := range u.leases {
			for _, c := range l.sets {
				if _, ok := protects[c]; !ok && p.Lease != nil {
					protects[c] = p.Lease.Evidence
				}
			}
		}
		for c, e := range protects {
			// State is what statements compare (a status, an owner, a
			// lease's time, the due time work is picked by), not a
			// timestamp every write of the row refreshes (updated_at)
			// unless reads look rows up by its value.
			if state(c) && !u.flags[c] && (u.states.Has(c) || u.expiry.Has(c) || f.Filtered[c]) && !(u.bookkeeping(c) && !f.stated[c]) {
				put(&p.State, c, e)
			}
		}
		for c, e := range p.Owners {
			put(&p.State, c, e)
		}
	}
	if p.Any() {
		for _, k := range u.rowKeys {
			if k = slices.DeleteFunc(slices.Clone(k), func(c string) bool { return u.written.Has(c) && !u.keys.Has(c) }); len(k) > 0 {
				p.Keys = append(p.Keys, k)
			}
		}
	}
	return p
}

// declared adds what .dsqllint.yaml declares of table: the fences of a
// coordination the code does not show (an external mutex, a single
// scheduler).
func (f *Fences) declared(k *Known, table string, p Protocols) Protocols {
	for _, d := range k.Coordination {
		if d.Table != table {
			continue
		}
		ev := Evidence{d.Where, "declares it coordinated (" + d.Why + ")"}
		for _, c := range d.Version {
			put(&p.CAS, c, ev)
		}
		for _, c := range d.Owner {
			put(&p.Owners, c, ev)
			put(&p.State, c, ev)
		}
		for _, c := range d.State {
			put(&p.State, c, ev)
		}
		if len(d.State) > 0 && len(d.Owner) == 0 {
			for _, c := range d.State {
				put(&p.CAS, c, ev)
			}
		}
	}
	return p
}

// timeColumn reports a column the schema types as a time: a mark
// (deleted_at) or a schedule, never an owner.
func timeColumn(t *catalog.Table, name string) bool {
	if t != nil {
		if col := t.Column(name); col != nil {
			return strings.HasPrefix(col.Type, "timestamp") || col.Type == "date" || col.Type == "time" || col.Type == "timetz"
		}
	}
	return false
}

func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Comparison reports an operator that compares a column with a value.
func Comparison(op sqlparse.Op) bool {
	switch op {
	case sqlparse.OpEq, sqlparse.OpNe, sqlparse.OpLt, sqlparse.OpLe, sqlparse.OpGt, sqlparse.OpGe,
		sqlparse.OpIn, sqlparse.OpNotIn, sqlparse.OpIsNull, sqlparse.OpIsNotNull, sqlparse.OpDistinct:
		return true
	}
	return false
}

func Assigns(w *sqlparse.Write, col string) bool { return assignOf(w, col) != nil }

// KeyColumns returns the columns w's WHERE pins by equality with a value
// from the caller: the row's key as far as the statement tells.
func KeyColumns(conds []sqlparse.Cond) []string {
	var keys []string
	for _, c := range conds {
		if c.Op == sqlparse.OpEq && c.Value == sqlparse.ValueCaller && c.Column != "" && !c.InSubquery {
			keys = append(keys, c.Column)
		}
	}
	return keys
}

// LockKeys describes a FOR UPDATE lock for the bookkeeping of "locked
// earlier in the same transaction": the table and the key columns its
// WHERE pins (none for a claim that picks rows by their state). ok is
// false for locks of no single table's rows. A FOR NO KEY UPDATE counts:
// DSQL001's fix makes it a FOR UPDATE.
func LockKeys(l *sqlparse.Lock) (table string, keys []string, ok bool) {
	if l.Strength != sqlparse.ForUpdate && l.Strength != sqlparse.ForNoKeyUpdate || l.Select == nil || len(l.Select.Tables) != 1 || l.Select.Tables[0].Unknown() {
		return "", nil, false
	}
	return l.Select.Tables[0].Name, KeyColumns(l.Select.Where), true
}

// WriteKeys describes an UPDATE or DELETE for the module stage's
// bookkeeping of "locked earlier in the same transaction": the table and
// the key columns its WHERE pins. ok is false for other statements.
func WriteKeys(st *sqlparse.Statement) (table string, keys []string, ok bool) {
	w := st.Write
	if w == nil || w.Kind == sqlparse.KindInsert || w.Table.Unknown() {
		return "", nil, false
	}
	keys = KeyColumns(w.Where)
	return w.Table.Name, keys, len(keys) > 0
}

// Known is what the module tells of its tables beyond its statements.
type Known struct {
	// Schema is the project's schema (catalog package), nil when none was
	// found: the locking rules then judge by column names alone.
	Schema *catalog.Catalog
	// Coordination are the tables .dsqllint.yaml declares coordinated by
	// what the code cannot show (an external mutex, a single scheduler).
	Coordination []Coordination
}

// Coordination declares a table's fences: the columns writers must
// compare, since something outside the code keeps them apart today.
type Coordination struct {
	Table   string
	Version []string // compare-and-set by every writer
	Owner   []string // the holder's, compared by every writer
	State   []string // the state a holder's claim protects
	Why     string   // what guards it now ("a Redis mutex")
	Where   string   // the declaration, ".dsqllint.yaml:12"
}

// Table returns the schema's Table for a statement's Table, or nil.
func (k *Known) Table(t sqlparse.Table) *catalog.Table {
	if k.Schema == nil || t.Unknown() {
		return nil
	}
	return k.Schema.Table(t.Schema, t.Name)
}

func ContainsAll(set, want []string) bool {
	for _, w := range want {
		if !slices.Contains(set, w) {
			return false
		}
	}
	return true
}

// ExcludesOnly reports an operator that rules values out rather than
// expecting one.
func ExcludesOnly(op sqlparse.Op) bool {
	return op == sqlparse.OpNe || op == sqlparse.OpNotIn || op == sqlparse.OpDistinct || op == sqlparse.OpIsNotNull
}

// Usage returns a table's record, or nil.
func (f *Fences) Usage(table string) *Usage {
	if f == nil {
		return nil
	}
	return f.Tables[table]
}
