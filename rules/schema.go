package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dsqllint/dsqllint/catalog"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// What the project's schema (Config.Schema) tells the locking rules:
// which tables are coordination state and by which columns, and which
// columns make a row's key.

// tableOf returns the schema's table for a statement's table, or nil when
// there is no schema or the schema does not know the table.
func tableOf(cfg *Config, t sqlparse.Table) *catalog.Table {
	if cfg.Schema == nil || t.Unknown() {
		return nil
	}
	return cfg.Schema.Table(t.Schema, t.Name)
}

// coordKind is why a column makes its table coordination state.
type coordKind uint8

const (
	notCoord coordKind = iota
	coordState
	coordExpiry
	coordOwner
	coordVersion // strongest: the column to name in a suggested fence
)

// coordinationKind classifies a schema column by the configured names,
// and by type where a name alone misleads: a version column counts when it
// is a number (or an opaque uuid/bytea token), not a `version text` that
// holds "1.2.3"; an expiry column when it holds a time (or an epoch
// number); a state column unless it is a payload blob (bytea, json).
func coordinationKind(cfg *Config, col *catalog.Column) coordKind {
	if col.Array {
		return notCoord
	}
	switch t := col.Type; {
	case cfg.FenceColumns.Has(col.Name) && (numericType(t) || t == "uuid" || t == "bytea"):
		return coordVersion
	case cfg.OwnerColumns.Has(col.Name):
		return coordOwner
	case cfg.ExpiryColumns.Has(col.Name) && (timeType(t) || numericType(t)):
		return coordExpiry
	case cfg.StateColumns.Has(col.Name) && !cfg.ExpiryColumns.Has(col.Name) && t != "bytea" && t != "json" && t != "jsonb":
		return coordState
	}
	return notCoord
}

func numericType(t string) bool {
	switch t {
	case "int2", "int4", "int8", "int", "integer", "bigint", "smallint", "numeric", "decimal",
		"float4", "float8", "serial", "bigserial", "smallserial", "serial2", "serial4", "serial8", "oid":
		return true
	}
	return false
}

func timeType(t string) bool {
	switch t {
	case "timestamp", "timestamptz", "date", "datetime":
		return true
	}
	return false
}

// coordination returns the table's coordination columns, strongest first.
func coordination(cfg *Config, t *catalog.Table) []*catalog.Column {
	var cols []*catalog.Column
	for _, c := range t.Columns {
		if coordinationKind(cfg, c) != notCoord {
			cols = append(cols, c)
		}
	}
	slices.SortStableFunc(cols, func(a, b *catalog.Column) int {
		return int(coordinationKind(cfg, b)) - int(coordinationKind(cfg, a))
	})
	return cols
}

// cite names a column with the file and line that declared it:
// "executions has next_event_id (schema/postgresql/schema.sql:38)".
func cite(t *catalog.Table, col *catalog.Column) string {
	s := t.Name + " has " + col.Name
	if p := col.Pos.String(); p != "" {
		s += " (" + p + ")"
	}
	return s
}

// pinnedKey reports whether conds pin one row of t: every column of its
// primary key, or of a unique key, compared for equality with a value.
func pinnedKey(t *catalog.Table, conds []sqlparse.Cond) bool {
	eq := keyColumns(conds)
	for _, k := range t.Keys() {
		if containsAll(eq, k) {
			return true
		}
	}
	return false
}

func containsAll(set, want []string) bool {
	for _, w := range want {
		if !slices.Contains(set, w) {
			return false
		}
	}
	return true
}

// primaryKeyGap says how a locking SELECT's WHERE falls short of pinning
// t's primary key by equality, or returns "" when it pins it (or cannot be
// judged).
func primaryKeyGap(t *catalog.Table, conds []sqlparse.Cond) string {
	pk := t.PrimaryKey
	if len(conds) == 0 {
		return "is missing, so nothing pins the primary key (" + strings.Join(pk, ", ") + ") of " + t.Name
	}
	eq := keyColumns(conds)
	for _, c := range conds {
		if c.Op == sqlparse.OpEq && c.Value == sqlparse.ValueSubquery && !c.InSubquery {
			eq = append(eq, c.Column) // id = (SELECT ...): one value, one row
		}
	}
	if containsAll(eq, pk) {
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
