package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dsqllint/dsqllint/catalog"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// UnfencedWrite is DSQL003.
var UnfencedWrite = register(&Rule{
	ID:       "DSQL003",
	Name:     "unfenced-write",
	Severity: Warning,
	Summary:  "UPDATE/DELETE of coordination state without a compare-and-swap predicate",
	check:    checkUnfencedWrite,
})

func checkUnfencedWrite(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
	w := st.Write
	if w == nil {
		return
	}
	cfg := ctx.Config
	var learned, named []string
	if !w.Table.Unknown() {
		learned, named = ctx.Fences.Of(w.Table.Name), ctx.Fences.Named(w.Table.Name)
	}
	// A state name the module writes but never compares is payload (an
	// OAuth2 `state` stored by key). Version and owner names stay: the code
	// compares what it read of them in Go.
	payload := func(col string) bool {
		return cfg.StateColumns.Has(col) && !cfg.FenceColumns.Has(col) && !cfg.OwnerColumns.Has(col) &&
			!w.Table.Unknown() && ctx.Fences.Payload(w.Table.Name, col)
	}
	var coord []string
	var evidence string // what makes the table coordination state
	col := ""           // the fence to suggest
	if t := tableOf(cfg, w.Table); t != nil {
		// The schema knows the table: it is coordination state when it has
		// a version, owner, expiry or state column, or when other
		// statements fence it; then any DELETE and any UPDATE that sets
		// one of those columns needs a fence.
		cols := slices.DeleteFunc(coordination(cfg, t), func(c *catalog.Column) bool { return payload(c.Name) })
		if len(cols) == 0 && len(learned) == 0 {
			return // a data table
		}
		for _, a := range w.Sets {
			if slices.ContainsFunc(cols, func(c *catalog.Column) bool { return c.Name == a.Column }) || slices.Contains(learned, a.Column) {
				coord = append(coord, a.Column)
			}
		}
		if w.Kind != sqlparse.KindDelete && len(coord) == 0 {
			return // payload-only write
		}
		// Name the strongest coordination column, preferring one the
		// statement assigns (SET db_record_version = ... wants AND
		// db_record_version = ...); a fence other statements use comes first.
		var best *catalog.Column
		for _, c := range cols {
			if best == nil || (coordinationKind(cfg, c) == coordinationKind(cfg, best) && slices.Contains(coord, c.Name) && !slices.Contains(coord, best.Name)) {
				best = c
			}
		}
		if best != nil {
			col, evidence = best.Name, cite(t, best)
		}
		if len(learned) > 0 {
			col = learned[0]
		}
	} else {
		for _, c := range coordinationColumns(cfg, w) {
			if !payload(c) {
				coord = append(coord, c)
			}
		}
		for _, a := range w.Sets {
			if slices.Contains(learned, a.Column) && !slices.Contains(coord, a.Column) {
				coord = append(coord, a.Column)
			}
		}
		if len(coord) == 0 && (len(learned) == 0 || (w.Kind != sqlparse.KindDelete && len(named) == 0)) {
			// A payload-only write of a data table; or of a table whose
			// rows the module claims by usage, which only a DELETE or a
			// write of the claimed columns can break.
			return
		}
		col = suggestColumn(cfg, learned, coord)
	}
	if fenced(cfg, ctx.Fences, w, w.Where) || guardedAssignments(cfg, w, coord) {
		return
	}
	if w.Kind == sqlparse.KindDelete && (!w.HasWhere || hasRange(w.Where) || !pinsByValue(w.Where)) {
		// A guarded bulk delete (DELETE ... WHERE expires_at < $1), one
		// whose rows a subquery picks, or one that empties the table (a
		// test's cleanup; DSQL109 judges its size): not a write of a row
		// the caller read.
		return
	}
	if w.Kind == sqlparse.KindUpdate && w.HasWhere && !pinsByValue(w.Where) {
		// A sweep (UPDATE ... WHERE now() - started_at > '1 day', or rows
		// a subquery picks): its own WHERE decides, on what it reads.
		return
	}
	if locksOwnTarget(st, w) {
		return // WITH m AS (SELECT id ... FOR UPDATE) UPDATE t ... FROM m: the statement writes the rows it locked
	}
	if ctx.LockedBefore != nil && !w.Table.Unknown() && ctx.LockedBefore(st.Span.Start, w.Table.Name, keyColumns(w.Where)) {
		return // the row was locked FOR UPDATE earlier in the same transaction
	}
	pred := col + " = " + placeholder(ctx, col)
	what := map[sqlparse.Kind]string{sqlparse.KindUpdate: "UPDATE of ", sqlparse.KindDelete: "DELETE from ", sqlparse.KindInsert: "upsert (ON CONFLICT DO UPDATE) of "}[w.Kind] + tableName(w.Table)
	var why string
	switch {
	case len(coord) > 0:
		why = fmt.Sprintf("%s sets %s with no compare-and-swap predicate on the row", what, strings.Join(coord, ", "))
	case len(learned) > 0:
		why = fmt.Sprintf("%s has no compare-and-swap predicate, though other statements fence %s on %s", what, tableName(w.Table), strings.Join(learned, ", "))
	default:
		why = fmt.Sprintf("%s has no compare-and-swap predicate on the row", what)
	}
	if evidence != "" {
		why += ", and " + evidence
	}
	var fix string
	switch {
	case w.Kind == sqlparse.KindInsert:
		fix = fmt.Sprintf("add `WHERE %s.%s` to DO UPDATE", tableName(w.Table), pred)
	case w.HasWhere:
		fix = fmt.Sprintf("add `AND %s`", pred)
	default:
		fix = fmt.Sprintf("add `WHERE <key> AND %s`", pred)
	}
	span := w.WhereSpan
	if !w.HasWhere {
		span = st.KeywordSpan
	}
	report(span, why+"; "+fix+" with the value read earlier and check that one row changed (occ.ExecCAS), or a stale writer overwrites the winner", nil)
}

// coordinationColumns returns the version, owner, state and lease columns
// the write assigns.
func coordinationColumns(cfg *Config, w *sqlparse.Write) []string {
	var cols []string
	for _, a := range w.Sets {
		if cfg.FenceColumns.Has(a.Column) || cfg.OwnerColumns.Has(a.Column) || cfg.StateColumns.Has(a.Column) || cfg.ExpiryColumns.Has(a.Column) {
			cols = append(cols, a.Column)
		}
	}
	return cols
}

// guardedAssignments accepts a write whose every coordination assignment
// is a CASE guarded by the row's owner, version or expiry (the MySQL-style
// upsert `worker_id = CASE WHEN expires_at <= ? THEN VALUES(worker_id)
// ...`), or by the column's own value (a state machine in one statement).
func guardedAssignments(cfg *Config, w *sqlparse.Write, coord []string) bool {
	if len(coord) == 0 {
		return false
	}
	for _, a := range w.Sets {
		if !slices.Contains(coord, a.Column) {
			continue
		}
		ok := false
		for _, g := range a.Guards {
			// A CASE on the column itself moves it only from the states
			// it names (SET state = CASE state WHEN 'landed' THEN ... END).
			if g == a.Column || cfg.FenceColumns.Has(g) || cfg.OwnerColumns.Has(g) || cfg.ExpiryColumns.Has(g) {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// pinsByValue reports a WHERE that picks rows by values the caller holds:
// an equality or IN list on a column, outside any subquery.
func pinsByValue(conds []sqlparse.Cond) bool {
	for _, c := range conds {
		if (c.Op == sqlparse.OpEq || c.Op == sqlparse.OpIn) && c.Value == sqlparse.ValueCaller && c.Column != "" && !c.InSubquery {
			return true
		}
	}
	return false
}

func hasRange(conds []sqlparse.Cond) bool {
	for _, c := range conds {
		switch c.Op {
		case sqlparse.OpLt, sqlparse.OpLe, sqlparse.OpGt, sqlparse.OpGe:
			if c.Column != "" && !c.InSubquery {
				return true
			}
		}
	}
	return false
}

// suggestColumn picks the fence to name: a column other statements already
// fence this table on, else the version, owner or state column assigned.
func suggestColumn(cfg *Config, learned, coord []string) string {
	if len(learned) > 0 {
		return learned[0]
	}
	for _, set := range []Columns{cfg.FenceColumns, cfg.OwnerColumns} {
		for _, c := range coord {
			if set.Has(c) {
				return c
			}
		}
	}
	return coord[0]
}

// placeholder spells a new parameter in the style the text already uses.
func placeholder(ctx *Context, col string) string {
	switch ctx.Style {
	case sqlparse.StyleQuestion:
		return "?"
	case sqlparse.StyleColon:
		return ":expected_" + col
	case sqlparse.StyleAt:
		return "@expected_" + col
	}
	return "$" + strconv.Itoa(ctx.MaxParam+1)
}

func tableName(t sqlparse.Table) string {
	if t.Unknown() {
		return "the table"
	}
	return t.Name
}

// locksOwnTarget reports a write that picks its rows through a FOR UPDATE
// of its own table in the same statement (a CTE or subquery): it writes
// only rows it read and locked, in the one transaction.
func locksOwnTarget(st *sqlparse.Statement, w *sqlparse.Write) bool {
	if w.Kind == sqlparse.KindInsert || w.Table.Unknown() {
		return false
	}
	for _, l := range st.Locks {
		if l.Strength != sqlparse.ForUpdate || l.Select == nil {
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
