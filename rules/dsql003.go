package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dsqllint/dsqllint/catalog"
	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// UnfencedWrite is DSQL003.
var UnfencedWrite = register(&Rule{
	ID:       "DSQL003",
	Name:     "unfenced-write",
	Severity: Warning,
	Summary:  "a write that loses, on Aurora DSQL, a fence the module shows, or bypasses one",
	check:    checkUnfencedWrite,
})

// checkUnfencedWrite reports a write that loses a fence on Aurora DSQL (a
// trigger's check, an advisory or table lock, a FOR SHARE's tokens, a
// SERIALIZABLE guard) or bypasses one the module's statements keep (a
// claim, a lease, a version or state compare-and-swap), with no
// compare-and-swap of its own that restores it. The finding names the
// fence; with none to name, the write is quiet, whatever its columns are
// called.
func checkUnfencedWrite(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
	w := st.Write
	if w == nil {
		return
	}
	j := &judge{ctx: ctx, st: st, w: w, cfg: ctx.Config}
	if w.Table.Unknown() {
		j.quiet("the table is named at run time, so no fence of the module can be matched to it")
		return
	}
	j.table = w.Table.Name
	j.p = ctx.Fences.Of(&j.cfg.Known, j.table)
	if ctx.Tx != nil {
		j.tx = ctx.Tx(st.Span.Start)
	}
	j.schema = tableOf(j.cfg, w.Table)
	if j.schema == nil && ctx.Fences != nil && ctx.Fences.Local != nil {
		j.schema = ctx.Fences.Local.Table(w.Table.Schema, w.Table.Name)
	}
	for _, check := range []func() (string, bool){j.writeSkew, j.trigger, j.lostLock, j.bypass} {
		if msg, done := check(); done {
			if msg != "" {
				report(whereSpan(st), msg, nil)
			}
			return
		}
	}
	j.quiet("no fence found: %s", j.lookedFor())
}

// judge is DSQL003's judgement of one write.
type judge struct {
	ctx    *Context
	cfg    *Config
	st     *sqlparse.Statement
	w      *sqlparse.Write
	table  string
	p      fencing.Protocols
	tx     TxView
	schema *catalog.Table
}

func (j *judge) quiet(format string, args ...any) {
	if j.ctx.Quiet != nil {
		j.ctx.Quiet(j.st.Span, fmt.Sprintf(format, args...))
	}
}

// done is a check's verdict: quiet, with why.
func (j *judge) done(format string, args ...any) (string, bool) {
	j.quiet(format, args...)
	return "", true
}

func (j *judge) what() string {
	return map[sqlparse.Kind]string{sqlparse.KindUpdate: "UPDATE", sqlparse.KindDelete: "DELETE", sqlparse.KindInsert: "upsert"}[j.w.Kind]
}

// lookedFor says which fences DSQL003 looked for, for -why.
func (j *judge) lookedFor() string {
	if !j.p.Any() {
		return "no statement of the module claims " + j.table + "'s rows, compare-and-sets them or checks a lease for them, " +
			"and no trigger, advisory lock, LOCK TABLE, FOR SHARE or SERIALIZABLE isolation guards this write"
	}
	return "it changes none of what " + j.table + "'s fences protect (" + j.protected() + ")"
}

// protected names the columns a table's fences protect.
func (j *judge) protected() string {
	var cols []string
	for _, m := range []map[string]fencing.Evidence{j.p.CAS, j.p.Owners, j.p.State} {
		for _, c := range fencing.SortedKeys(m) {
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
	}
	if len(cols) == 0 {
		return "its rows"
	}
	return strings.Join(cols, ", ")
}

// writeSkew reports a write whose guard reads other rows of its own table
// (the last admin's count), unless a UNIQUE constraint holds what the
// guard checks: under snapshot isolation two such writes both pass.
func (j *judge) writeSkew() (string, bool) {
	w := j.w
	if !w.ReadsOthers || w.Kind == sqlparse.KindInsert || !pinsByValue(w.Where) || hasRange(w.Where) {
		return "", false
	}
	var g *sqlparse.Guard
	for i := range w.Guards {
		if w.Guards[i].Table.Name == w.Table.Name {
			g = &w.Guards[i]
			break
		}
	}
	var over, byParam []string
	if g != nil {
		over = fencing.Pins(g.Where)
		for _, c := range g.Where {
			if c.Op == sqlparse.OpEq && fencing.IsParam(c.Arg) && !c.InSubquery {
				byParam = append(byParam, c.Column) // what ties the rows together (the group), not a constant filter
			}
		}
		if j.schema != nil {
			for _, k := range j.schema.Keys() {
				if fencing.ContainsAll(over, k) {
					return j.done("its guard looks up the row of %s's unique key (%s): the constraint, not the guard, keeps two writers apart", j.table, strings.Join(k, ", "))
				}
			}
		}
	}
	if len(byParam) > 0 {
		over = byParam
	}
	rows := "other rows of " + j.table
	parent := "the row they both depend on (a count or a version on the parent row)"
	if len(over) > 0 {
		rows = fmt.Sprintf("the rows of %s with the same %s", j.table, strings.Join(over, ", "))
		parent = fmt.Sprintf("one row for that %s (a count or a version on the parent row)", strings.Join(over, ", "))
	}
	iso := ""
	if p, ok := has(j.tx.Some, PriorSerializable, "", nil); ok {
		iso = fmt.Sprintf(" (the SERIALIZABLE isolation set at %s that kept them apart on PostgreSQL is refused on DSQL)", p.At)
	}
	return fmt.Sprintf("this %s is guarded by a subquery over %s, and no UNIQUE constraint holds what it checks: under snapshot isolation two such writes "+
		"both pass the guard and together break it (write skew), since DSQL detects conflicts only on rows both transactions write%s; "+
		"have every such write also update %s with a compare-and-swap, and check that one row changed", j.what(), rows, iso, parent), true
}

// trigger reports a write a trigger of its table checked on PostgreSQL:
// Aurora DSQL has no triggers, so the write needs the check in its WHERE
// (or, for a version the trigger bumped, in its SET).
func (j *judge) trigger() (string, bool) {
	if j.schema == nil {
		return "", false
	}
	cat := j.ctx.Config.Schema
	if cat == nil || cat.Table(j.w.Table.Schema, j.table) != j.schema {
		cat = j.ctx.Fences.Local
	}
	if cat == nil {
		return "", false
	}
	event := sqlparse.OnUpdate
	if j.w.Kind == sqlparse.KindDelete {
		event = sqlparse.OnDelete
	}
	for _, ck := range cat.Checks(j.schema, event) {
		tr := ck.Trigger
		if len(tr.Def.Columns) > 0 && !slices.ContainsFunc(tr.Def.Columns, func(c string) bool { return fencing.Assigns(j.w, c) }) {
			continue // UPDATE OF columns this write leaves alone
		}
		where := fmt.Sprintf("%s has trigger %s (%s), whose function %s (%s)", j.table, tr.Def.Name, tr.Pos, ck.Function, ck.FuncPos)
		switch ck.Kind {
		case sqlparse.CheckRefuse:
			if len(ck.Old) == 0 || len(ck.New) > 0 && !slices.ContainsFunc(ck.New, func(c string) bool { return fencing.Assigns(j.w, c) }) {
				continue // no state to refuse in, or a change this write does not make
			}
			if slices.ContainsFunc(ck.Old, func(c string) bool { return compares(j.w.Where, c) }) {
				continue // the write checks that state itself
			}
			return fmt.Sprintf("%s refused this %s when %s; Aurora DSQL has no triggers (DSQL105), so the write now goes through: "+
				"add `AND %s` to its WHERE and check that one row changed (occ.ExecCAS)", where, j.what(), ck.Cond, ck.Restore), true
		case sqlparse.CheckVersion:
			if j.w.Kind == sqlparse.KindDelete || fencing.Assigns(j.w, ck.Column) || !j.comparedVersion(ck.Column) {
				continue
			}
			return fmt.Sprintf("%s bumped %s on every UPDATE; Aurora DSQL has no triggers (DSQL105), so this %s leaves %s as it was "+
				"and the compare-and-swaps of %s no longer see its change: add `%s = %s + 1` to its SET",
				where, ck.Column, j.what(), ck.Column, ck.Column, ck.Column, ck.Column), true
		}
	}
	return "", false
}

// comparedVersion reports a version column some statement compares.
func (j *judge) comparedVersion(col string) bool {
	if _, ok := j.p.CAS[col]; ok {
		return true
	}
	u := j.ctx.Fences.Usage(j.table)
	return u != nil && (u.Compared.Has(col) || len(u.Holders[col]) > 0) || j.ctx.Fences != nil && j.ctx.Fences.Filtered[col]
}

// lostLock reports a write whose transaction relied on a lock DSQL does
// not take: an advisory lock, LOCK TABLE, the tokens a FOR SHARE read, a
// SERIALIZABLE guard — or rows the module claims with advisory locks.
func (j *judge) lostLock() (string, bool) {
	w := j.w
	if w.Kind == sqlparse.KindInsert && len(w.Sets) == 0 || !pinsByValue(w.Where) && w.Kind != sqlparse.KindInsert {
		return "", false // a sweep or bulk write picks its own rows
	}
	if j.ownCAS() {
		return "", false // its own compare-and-swap keeps writers apart
	}
	// The row's own lock keeps its writers apart as an advisory or table
	// lock did, and a row the transaction inserted has no other writer; a
	// FOR SHARE's token, kept on another row, needs that row locked.
	_, inserted := has(j.tx.Every, PriorInsert, j.table, nil)
	locked := j.lockedFirst() || inserted
	lost := func(how, restore string) string {
		return fmt.Sprintf("this %s %s; %s", j.what(), how, restore)
	}
	cas := j.casAdvice()
	if p, ok := has(j.tx.Some, PriorAdvisory, "", nil); ok && !locked {
		return lost(fmt.Sprintf("runs after %s at %s in the same transaction, which kept its writers apart on PostgreSQL; "+
			"Aurora DSQL refuses advisory locks (DSQL007), so two writers now race", p.What, p.At), cas), true
	}
	if p, ok := has(j.tx.Some, PriorLockTable, "", nil); ok && !locked {
		return lost(fmt.Sprintf("runs after LOCK TABLE %s at %s in the same transaction, which kept its writers apart on PostgreSQL; "+
			"Aurora DSQL refuses LOCK TABLE (DSQL007), so two writers now race", p.Table, p.At), cas), true
	}
	if p, ok := has(j.tx.Some, PriorShare, "", func(p Prior) bool {
		if _, tokenLocked := has(j.tx.Every, PriorLock, p.Table, func(l Prior) bool { return lockCovers(l, p.Keys) }); tokenLocked {
			return false // the token's row is locked FOR UPDATE too
		}
		return len(p.Columns) > 0 && !(p.Table == j.table && slices.ContainsFunc(p.Columns, func(c string) bool { return compares(w.Where, c) }))
	}); ok {
		restore := fmt.Sprintf("lock the row FOR UPDATE instead (DSQL001's fix) and retry the transaction on 40001, or compare %s in this write", strings.Join(p.Columns, ", "))
		if p.Table != j.table {
			restore = "lock the row FOR UPDATE instead (DSQL001's fix) and retry the transaction on 40001: then a racing writer of " +
				strings.Join(p.Columns, ", ") + " fails at COMMIT"
		}
		return lost(fmt.Sprintf("runs in the transaction that read %s.%s %s at %s, the fence token it relies on; "+
			"Aurora DSQL refuses %s and a plain read conflicts with nothing, so a writer that changes %s meanwhile no longer stops this write",
			p.Table, strings.Join(p.Columns, ", "), p.What, p.At, p.What, strings.Join(p.Columns, ", ")), restore), true
	}
	if p, ok := has(j.tx.Some, PriorSerializable, "", nil); ok && !locked {
		keys := fencing.KeyColumns(w.Where)
		if r, ok := has(j.tx.Some, PriorRead, "", func(r Prior) bool {
			return !j.uniqueRead(r) && !(r.Table == j.table && len(keys) > 0 && fencing.ContainsAll(append(slices.Clip(r.Keys), r.Columns...), keys)) // (the row itself: a conflict on DSQL)
		}); ok {
			by, share := "", "one row they share"
			if len(r.Keys) > 0 {
				by = " (rows by " + strings.Join(r.Keys, ", ") + ")"
				share = "one row they share (the parent row of " + strings.Join(r.Keys, ", ") + ")"
			}
			return lost(fmt.Sprintf("is guarded by the read of %s at %s%s, in a transaction set SERIALIZABLE at %s; "+
				"Aurora DSQL runs snapshot isolation (DSQL009), so two such transactions both pass the check (write skew)",
				r.Table, r.At, by, p.At),
				"have both update "+share+" with a compare-and-swap and check that one row changed"), true
		}
	}
	if j.p.Advisory.Does != "" && w.Kind != sqlparse.KindInsert && !locked {
		restore := cas
		if len(j.p.Owners) == 0 {
			restore = "claim the rows with a compare-and-swap of an owner column instead (UPDATE ... SET owner = $me WHERE <key> AND owner IS NULL) " +
				"and compare it in this write (AND owner = $me), checking that one row changed"
		}
		return lost(fmt.Sprintf("writes a row of %s by its key, and %s; Aurora DSQL refuses advisory locks (DSQL007), "+
			"so this write no longer runs only for the claim's holder", j.table, j.p.Advisory), restore), true
	}
	return "", false
}

// uniqueRead reports a read that looks up one row by a unique key: a
// constraint, not the read, keeps two writers apart.
func (j *judge) uniqueRead(r Prior) bool {
	t := tableOf(j.cfg, sqlparse.Table{Name: r.Table})
	if t == nil && j.ctx.Fences != nil && j.ctx.Fences.Local != nil {
		t = j.ctx.Fences.Local.Table("", r.Table)
	}
	if t == nil {
		return false
	}
	return slices.ContainsFunc(t.Keys(), func(k []string) bool { return fencing.ContainsAll(r.Keys, k) })
}

// casAdvice is the compare-and-swap a write needs in place of a lock.
func (j *judge) casAdvice() string {
	col := ""
	for _, m := range []map[string]fencing.Evidence{j.p.CAS, j.p.Owners, j.p.State} {
		for _, c := range fencing.SortedKeys(m) {
			if col == "" && (fencing.Assigns(j.w, c) || j.w.Kind == sqlparse.KindDelete) {
				col = c
			}
		}
	}
	for _, a := range j.w.Sets {
		if col == "" && !slices.Contains(j.w.ConflictKey, a.Column) {
			col = a.Column
		}
	}
	if col == "" {
		return "compare what the transaction read (a version or a state column) in its WHERE and check that one row changed (occ.ExecCAS)"
	}
	return j.predicate(col) + " with the value read earlier and check that one row changed (occ.ExecCAS)"
}

// predicate is the text that adds a comparison of col to the write.
func (j *judge) predicate(col string) string {
	ph := placeholder(j.ctx, j.st, col)
	switch {
	case j.w.Kind == sqlparse.KindInsert:
		if !sqlIdent(j.table) {
			return fmt.Sprintf("add `WHERE %s = %s` to DO UPDATE", col, ph) // a table named at run time
		}
		return fmt.Sprintf("add `WHERE %s.%s = %s` to DO UPDATE", j.table, col, ph)
	case j.w.HasWhere:
		return fmt.Sprintf("add `AND %s = %s`", col, ph)
	}
	return fmt.Sprintf("add `WHERE <key> AND %s = %s`", col, ph)
}

// ownCAS reports a write that compares, on its row, a column it assigns
// (a compare-and-swap or a state machine's guard) or one of its table's
// fences — or checks a lease: a fence of its own.
func (j *judge) ownCAS() bool {
	w := j.w
	protocol := func(c string) bool {
		_, cas := j.p.CAS[c]
		_, own := j.p.Owners[c]
		_, state := j.p.State[c]
		return cas || own || state || slices.Contains(j.p.Expiry, c)
	}
	var fenced func(conds []sqlparse.Cond) bool
	fence := func(c sqlparse.Cond) bool {
		if c.InSubquery {
			return false
		}
		if c.Op == sqlparse.OpOr {
			for _, b := range c.Or {
				if !fenced(b) {
					return false
				}
			}
			return len(c.Or) > 0
		}
		if c.Column == "" || !fencing.Comparison(c.Op) || fencing.SkipsUnchanged(w, c) {
			return false
		}
		if c.Value == sqlparse.ValueColumn || c.Value == sqlparse.ValueOther && c.Op != sqlparse.OpIsNull {
			// Against another column of the row (next_retry < last_start):
			// a guard on the very column the write moves, or nothing.
			return fencing.Assigns(w, c.Column) && c.Value == sqlparse.ValueColumn
		}
		return protocol(c.Column) || fencing.Assigns(w, c.Column) && c.Op != sqlparse.OpIsNotNull ||
			fencing.IsRange(c.Op) && c.Value == sqlparse.ValueNow && j.cfg.ExpiryColumns.Has(c.Column)
	}
	fenced = func(conds []sqlparse.Cond) bool { return slices.ContainsFunc(conds, fence) }
	if fenced(w.Where) {
		return true
	}
	for _, g := range w.Guards {
		if !g.Not && g.Table.Name != w.Table.Name && slices.ContainsFunc(g.Where, func(c sqlparse.Cond) bool {
			return c.Op == sqlparse.OpEq && c.Value == sqlparse.ValueCaller && fencing.IsParam(c.Arg) && !c.InSubquery
		}) {
			return true // AND EXISTS (SELECT 1 FROM leases WHERE ... worker_id = $4)
		}
	}
	// A MySQL-style upsert whose every assignment is a CASE over the
	// row's own lease or state moves the row only where it may.
	guardedAll := len(w.Sets) > 0
	for _, a := range w.Sets {
		if !slices.ContainsFunc(a.Guards, func(g string) bool {
			return g == a.Column || protocol(g) || j.cfg.ExpiryColumns.Has(g) || j.cfg.OwnerColumns.Has(g)
		}) {
			guardedAll = false
		}
	}
	return guardedAll
}

// bypass reports a write that changes what a protocol of its table
// protects without following it: a claim's state written without the
// claim, a compare-and-set column written blind, a claimed row deleted by
// whoever holds its key.
func (j *judge) bypass() (string, bool) {
	w, p := j.w, j.p
	if !p.Any() {
		return "", false
	}
	if j.ownCAS() {
		return j.done("fenced: its WHERE compares what its table's fences protect (%s), or checks the lease", j.protected())
	}
	var claimCols, casCols []string
	for _, a := range w.Sets {
		if slices.Contains(w.ConflictKey, a.Column) {
			continue
		}
		if _, ok := p.State[a.Column]; ok && p.Claimed() && !slices.Contains(claimCols, a.Column) {
			claimCols = append(claimCols, a.Column)
		}
		if _, ok := p.CAS[a.Column]; ok && !slices.Contains(casCols, a.Column) && !(a.Step && !j.equalityCAS(a.Column)) {
			casCols = append(casCols, a.Column)
		}
	}
	// A delete of a claimed row by its key alone; one that checks the
	// row's state (AND is_deleted AND no bucket left) deletes only rows in
	// it, which no claim holds.
	deletesClaimed := w.Kind == sqlparse.KindDelete && p.Claimed() && keyOnly(w.Where)
	if len(claimCols) == 0 && len(casCols) == 0 && !deletesClaimed {
		if w.Kind == sqlparse.KindDelete {
			return j.done("a delete of a row nobody claims: it wins over an edit by design (%s's fences protect %s)", j.table, j.protected())
		}
		return j.done("payload only: it changes %s; %s's fences protect %s", setColumns(w), j.table, j.protected())
	}
	// A column compared with a constant (login_type = 'oidc') filters
	// rows; it picks no row the caller read.
	pinned := fencing.ParamPins(w.Where)
	switch {
	case w.Kind == sqlparse.KindDelete && (!w.HasWhere || hasRange(w.Where) || len(pinned) == 0):
		return j.done("a bulk delete: its own WHERE picks the rows, not a key the caller read")
	case w.Kind == sqlparse.KindUpdate && w.HasWhere && len(pinned) == 0:
		return j.done("a sweep: its own WHERE picks the rows, not a key the caller read")
	case w.Kind == sqlparse.KindUpdate && !w.HasWhere:
		return j.done("it writes every row (DSQL109 judges its size), not a row the caller read")
	}
	if w.Kind != sqlparse.KindInsert && len(p.Keys) > 0 &&
		!slices.ContainsFunc(p.Keys, func(k []string) bool {
			return slices.ContainsFunc(k, func(c string) bool { return slices.Contains(pinned, c) })
		}) {
		return j.done("it picks rows by other columns than the fence statements pick a row by (%s): not the rows they protect", keysList(p.Keys))
	}
	if locksOwnTarget(j.st, w) {
		return j.done("it writes only the rows it locks FOR UPDATE itself")
	}
	if j.lockedFirst() {
		return j.done("the row is locked FOR UPDATE earlier in the same transaction: a racing writer fails at COMMIT")
	}
	if p, ok := has(j.tx.Every, PriorInsert, j.table, nil); ok {
		return j.done("the row was inserted earlier in the same transaction or function (%s): no other process has it yet", p.At)
	}
	what := j.what()
	if len(claimCols) > 0 || deletesClaimed {
		claim := p.Claim()
		col, how := j.claimCheck()
		changes := "deletes a claimed row by its key"
		if len(claimCols) > 0 {
			changes = "changes " + strings.Join(claimCols, ", ")
		}
		if p.Lease != nil && len(p.Owners) == 0 {
			return fmt.Sprintf("writes of %s check the lease in %s (%s); this %s %s without that check, so a worker whose lease ran out or was taken over "+
				"overwrites the new holder's work: check the lease as that write does, and on DSQL lock the lease row FOR UPDATE in the same transaction "+
				"(a read of it conflicts with nothing)", j.table, p.Lease.Table, p.Lease.At, what, changes), true
		}
		return fmt.Sprintf("%s's rows are claimed: %s; this %s %s without checking the claim, so a process whose claim was taken over "+
			"overwrites the new holder's work: %s%s and check that one row changed (occ.ExecCAS)", j.table, claim, what, changes, j.predicateFor(col), how), true
	}
	col := casCols[0]
	version := ""
	if j.schema != nil {
		if c := j.schema.Column(col); c != nil && c.Pos.String() != "" {
			version = " (" + col + " is declared at " + c.Pos.String() + ")"
		}
	}
	return fmt.Sprintf("%s is compare-and-set: %s; this %s changes %s by the row's key without comparing it, so a stale writer overwrites the winner: "+
		"%s with the value read earlier and check that one row changed (occ.ExecCAS)%s", col, p.CAS[col], what, strings.Join(casCols, ", "), j.predicate(col), version), true
}

// predicateFor is predicate, or a generic check where no column is known.
func (j *judge) predicateFor(col string) string {
	if col == "" {
		return "check the claim in its WHERE"
	}
	return j.predicate(col)
}

// claimCheck picks the column a claim's holder compares (an owner, else
// the state the write moves, else another state), and says where that
// value comes from.
func (j *judge) claimCheck() (string, string) {
	for _, c := range fencing.SortedKeys(j.p.Owners) {
		return c, " (the holder's own value)"
	}
	states := fencing.SortedKeys(j.p.State)
	for _, c := range states {
		if fencing.Assigns(j.w, c) {
			return c, " (the state the claim set)"
		}
	}
	for _, c := range states {
		return c, " (the state the claim set)"
	}
	return "", ""
}

// keyOnly reports a WHERE that only picks rows by values the caller holds:
// equalities (or IN lists) with parameters, nothing about the rows' state.
func keyOnly(conds []sqlparse.Cond) bool {
	for _, c := range conds {
		if c.InSubquery || c.Column == "" || c.Value != sqlparse.ValueCaller || c.Op != sqlparse.OpEq && c.Op != sqlparse.OpIn || c.Op == sqlparse.OpEq && !fencing.IsParam(c.Arg) {
			return false
		}
	}
	return len(conds) > 0
}

// equalityCAS reports a compare-and-set column some statement compares
// for equality: a step of it (range_id = range_id + 1) takes the row from
// whoever holds it, where a step of a counter compared by range loses no
// one's write.
func (j *judge) equalityCAS(col string) bool {
	u := j.ctx.Fences.Usage(j.table)
	if u == nil {
		return true
	}
	for _, g := range u.CAS[col] {
		if strings.HasPrefix(g.Does, "compare-and-sets") {
			return true
		}
	}
	return false
}

// lockedFirst reports a write whose every way of running holds a FOR
// UPDATE of its row, taken earlier in the same transaction.
func (j *judge) lockedFirst() bool {
	keys := fencing.KeyColumns(j.w.Where)
	_, ok := has(j.tx.Every, PriorLock, j.table, func(p Prior) bool { return lockCovers(p, keys) })
	return ok
}

// compares reports a WHERE that compares col on the written row (every
// branch of an OR doing so).
func compares(conds []sqlparse.Cond, col string) bool {
	for _, c := range conds {
		if c.InSubquery {
			continue
		}
		if c.Op == sqlparse.OpOr {
			if len(c.Or) > 0 && !slices.ContainsFunc(c.Or, func(b []sqlparse.Cond) bool { return !compares(b, col) }) {
				return true
			}
			continue
		}
		if c.Column == col && fencing.Comparison(c.Op) {
			return true
		}
	}
	return false
}

// whereSpan is where a finding about a write's WHERE goes: the keyword,
// or the statement's first word when it has none.
func whereSpan(st *sqlparse.Statement) sqlparse.Span {
	if st.Write.HasWhere {
		return st.Write.WhereSpan
	}
	return st.KeywordSpan
}

// setColumns names the columns a write assigns.
func setColumns(w *sqlparse.Write) string {
	var cols []string
	for _, a := range w.Sets {
		cols = append(cols, a.Column)
	}
	if len(cols) == 0 {
		return "no column"
	}
	return strings.Join(cols, ", ")
}

// pinsByValue reports a WHERE that picks rows by values the caller holds:
// an equality or IN list on a column, outside any subquery.
func pinsByValue(conds []sqlparse.Cond) bool { return len(fencing.Pins(conds)) > 0 }

func hasRange(conds []sqlparse.Cond) bool {
	for _, c := range conds {
		if fencing.IsRange(c.Op) && c.Column != "" && !c.InSubquery {
			return true
		}
	}
	return false
}

// placeholder spells a new parameter in the style the text already uses,
// after the statement's own (a query file numbers each query from $1).
func placeholder(ctx *Context, st *sqlparse.Statement, col string) string {
	switch ctx.Style {
	case sqlparse.StyleQuestion:
		return "?"
	case sqlparse.StyleColon:
		return ":expected_" + col
	case sqlparse.StyleAt:
		return "@expected_" + col
	}
	n := ctx.MaxParam
	if st.Span.Start >= 0 && st.Span.End <= len(ctx.Text) && st.Span.Start < st.Span.End {
		n = 0
		src := ctx.Text[st.Span.Start:st.Span.End]
		for _, t := range sqlparse.Lex(src) {
			if t.Kind == sqlparse.TokParam {
				if k, err := strconv.Atoi(t.Text(src)[1:]); err == nil && k > n {
					n = k
				}
			}
		}
	}
	return "$" + strconv.Itoa(n+1)
}

// locksOwnTarget reports a write that picks its rows through a FOR UPDATE
// of its own table in the same statement (a CTE or subquery): it writes
// only rows it read and locked, in the one transaction.
func locksOwnTarget(st *sqlparse.Statement, w *sqlparse.Write) bool {
	if w.Kind == sqlparse.KindInsert || w.Table.Unknown() {
		return false
	}
	for _, l := range st.Locks {
		if l.Strength != sqlparse.ForUpdate && l.Strength != sqlparse.ForNoKeyUpdate || l.Select == nil {
			continue
		}
		for _, t := range l.Select.Tables {
			if t.Name == w.Table.Name && t.Schema == w.Table.Schema {
				return true
			}
		}
	}
	return false
}

// sqlIdent reports a name SQL can spell as written: not the Go
// expression that names a table at run time (Store.table).
func sqlIdent(name string) bool {
	return name != "" && !strings.ContainsAny(name, ".()[] ")
}

func keysList(keys [][]string) string {
	var s []string
	for _, k := range keys {
		s = append(s, strings.Join(k, ", "))
	}
	return strings.Join(s, "; ")
}
