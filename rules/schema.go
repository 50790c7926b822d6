package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dsqllint/dsqllint/catalog"
	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// What the project's schema (Config.Schema) tells the locking rules:
// which columns make a row's key.

// tableOf returns the schema's table for a statement's table, or nil when
// there is no schema or the schema does not know the table.
func tableOf(cfg *Config, t sqlparse.Table) *catalog.Table { return cfg.Known.Table(t) }

// pinnedKey reports whether conds pin one row of t: every column of its
// primary key, or of a unique key, compared for equality with a value.
func pinnedKey(t *catalog.Table, conds []sqlparse.Cond) bool {
	eq := fencing.KeyColumns(conds)
	for _, k := range t.Keys() {
		if fencing.ContainsAll(eq, k) {
			return true
		}
	}
	return false
}

// primaryKeyGap says how a locking SELECT's WHERE falls short of pinning
// t's primary key by equality, or returns "" when it pins it (or cannot be
// judged).
func primaryKeyGap(t *catalog.Table, conds []sqlparse.Cond) string {
	pk := t.PrimaryKey
	if len(conds) == 0 {
		return "is missing, so nothing pins the primary key (" + strings.Join(pk, ", ") + ") of " + t.Name
	}
	eq := fencing.KeyColumns(conds)
	for _, c := range conds {
		if c.Op == sqlparse.OpEq && c.Value == sqlparse.ValueSubquery && !c.InSubquery {
			eq = append(eq, c.Column) // id = (SELECT ...): one value, one row
		}
	}
	if fencing.ContainsAll(eq, pk) {
		return ""
	}
	for _, c := range conds {
		if c.Column == "" && c.Op != sqlparse.OpOr && !c.InSubquery {
			return "" // a condition the model cannot read may pin the key
		}
	}
	var missing, pinned []string
	for _, k := range pk {
		if slices.Contains(eq, k) {
			pinned = append(pinned, k)
		} else {
			missing = append(missing, k)
		}
	}
	key := "the primary key (" + strings.Join(pk, ", ") + ") of " + t.Name
	if p := t.Pos.String(); p != "" {
		key += " (declared at " + p + ")"
	}
	switch {
	case len(pinned) > 0:
		return fmt.Sprintf("pins %s but not %s of %s", strings.Join(pinned, ", "), strings.Join(missing, ", "), key)
	case len(eq) > 0:
		return fmt.Sprintf("pins %s, not %s", strings.Join(eq, ", "), key)
	}
	return "pins no column of " + key + " by equality"
}
