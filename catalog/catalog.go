package catalog

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// DefaultSchema is where an unqualified CREATE TABLE puts its table.
const DefaultSchema = "public"

// Catalog is a database schema: the tables its DDL leaves behind.
type Catalog struct {
	tables map[tableKey]*Table
	// byName indexes tables by name alone, for unqualified lookups.
	byName map[string][]*Table
	// indexes maps a unique index's name to its table and key, for DROP
	// INDEX, ALTER INDEX ... RENAME and ADD CONSTRAINT ... USING INDEX.
	indexes map[tableKey]indexEntry
	// Files are the files replayed, in order.
	Files []string
	// functions are the functions the DDL defines, by name, for the
	// triggers that execute them.
	functions map[string]*function
}

type function struct {
	def *sqlparse.FunctionDef
	pos Pos
}

// Trigger is a row trigger on a table.
type Trigger struct {
	Def *sqlparse.TriggerDef
	Pos Pos
}

type tableKey struct{ schema, name string }

type indexEntry struct {
	table tableKey
	key   sqlparse.Key
}

// Table is one table of the schema.
type Table struct {
	Schema, Name string
	Columns      []*Column
	// PrimaryKey lists the primary key's columns; nil when none is declared.
	PrimaryKey []string
	// Uniques are the other keys: UNIQUE constraints and unique indexes
	// over plain columns, not partial.
	Uniques [][]string
	// Pos is where the table was created.
	Pos Pos
	// Triggers are the table's triggers, in the order created.
	Triggers []*Trigger
	// keyNames maps constraint names to keys, for DROP CONSTRAINT.
	keyNames map[string][]string
}

// Column is a column of a table.
type Column struct {
	Name string
	// Type is the type name as PostgreSQL's parser keeps it: "int8" for
	// bigint, "timestamptz", "text", "uuid".
	Type  string
	Array bool
	// Pos is where the column was declared (CREATE TABLE, ADD COLUMN) or
	// last renamed or retyped.
	Pos Pos
}

// Pos is a place in a schema file.
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string {
	if p.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// New returns an empty catalog.
func New() *Catalog {
	return &Catalog{tables: map[tableKey]*Table{}, byName: map[string][]*Table{}, indexes: map[tableKey]indexEntry{}, functions: map[string]*function{}}
}

// Len returns the number of tables.
func (c *Catalog) Len() int {
	if c == nil {
		return 0
	}
	return len(c.tables)
}

// Tables returns the tables ordered by schema and name.
func (c *Catalog) Tables() []*Table {
	if c == nil {
		return nil
	}
	out := make([]*Table, 0, len(c.tables))
	for _, t := range c.tables {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Schema != out[j].Schema {
			return out[i].Schema < out[j].Schema
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Table looks a table up as a query names it: schema-qualified, or by
// name in the default schema, or by name alone when exactly one schema
// has a table of that name. It returns nil when the catalog does not know
// the table (or c is nil).
func (c *Catalog) Table(schema, name string) *Table {
	if c == nil || name == "" {
		return nil
	}
	if t := c.tables[tableKey{schemaOf(schema), name}]; t != nil {
		return t
	}
	// The search path is not known: an unqualified name may live in
	// another schema, and a qualified one may be the same table created
	// unqualified.
	if ts := c.byName[name]; len(ts) == 1 {
		return ts[0]
	}
	return nil
}

// put adds (or replaces) a table.
func (c *Catalog) put(t *Table) {
	k := tableKey{t.Schema, t.Name}
	if old := c.tables[k]; old != nil {
		c.remove(old)
	}
	c.tables[k] = t
	c.byName[t.Name] = append(c.byName[t.Name], t)
}

// remove drops a table.
func (c *Catalog) remove(t *Table) {
	delete(c.tables, tableKey{t.Schema, t.Name})
	c.byName[t.Name] = slices.DeleteFunc(c.byName[t.Name], func(x *Table) bool { return x == t })
	if len(c.byName[t.Name]) == 0 {
		delete(c.byName, t.Name)
	}
}

func schemaOf(s string) string {
	if s == "" {
		return DefaultSchema
	}
	return s
}

// Column returns the named column, or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Keys returns the primary key, then the other unique keys.
func (t *Table) Keys() [][]string {
	var out [][]string
	if t.PrimaryKey != nil {
		out = append(out, t.PrimaryKey)
	}
	return append(out, t.Uniques...)
}

// Apply replays the schema changes of a parsed script; file names the
// script in positions.
func (c *Catalog) Apply(file string, s *sqlparse.Script) { c.applyAt(file, s, 1) }

// applyAt is Apply for a script that starts at line first of its file.
func (c *Catalog) applyAt(file string, s *sqlparse.Script, first int) {
	lines := newLines(s.Text)
	pos := func(sp sqlparse.Span) Pos { return Pos{file, first - 1 + lines.line(sp.Start)} }
	for _, st := range s.Stmts {
		for _, ch := range st.Changes {
			if ch.Kind == sqlparse.ChangeCreateFunction {
				ch.Table.Span = st.KeywordSpan // where the function is
			}
			c.apply(ch, pos)
		}
	}
}

func keyOf(t sqlparse.Table) tableKey { return tableKey{schemaOf(t.Schema), t.Name} }

// lookup finds the table a DDL statement changes, with the same leniency
// as Table.
func (c *Catalog) lookup(t sqlparse.Table) *Table {
	if t.Unknown() {
		return nil
	}
	return c.Table(t.Schema, t.Name)
}

func (c *Catalog) apply(ch sqlparse.Change, pos func(sqlparse.Span) Pos) {
	switch ch.Kind {
	case sqlparse.ChangeCreateTable:
		k := keyOf(ch.Table)
		if ch.Table.Unknown() || (ch.IfNotExists && c.tables[k] != nil) {
			return
		}
		t := &Table{Schema: k.schema, Name: k.name, Pos: pos(ch.Table.Span), keyNames: map[string][]string{}}
		if ch.Like != nil {
			if src := c.lookup(*ch.Like); src != nil {
				for _, col := range src.Columns {
					cp := *col
					t.Columns = append(t.Columns, &cp)
				}
			}
		}
		for _, col := range ch.Columns {
			t.addColumn(col, pos)
		}
		for _, key := range ch.Keys {
			c.addKey(t, key)
		}
		c.put(t)
	case sqlparse.ChangeDropTable:
		if t := c.lookup(ch.Table); t != nil {
			c.remove(t)
			for name, ix := range c.indexes {
				if ix.table == (tableKey{t.Schema, t.Name}) {
					delete(c.indexes, name)
				}
			}
		}
	case sqlparse.ChangeRenameTable:
		if t := c.lookup(ch.Table); t != nil && ch.NewName != "" {
			old := tableKey{t.Schema, t.Name}
			c.remove(t)
			t.Name = ch.NewName
			c.put(t)
			for name, ix := range c.indexes {
				if ix.table == old {
					ix.table = tableKey{t.Schema, t.Name}
					c.indexes[name] = ix
				}
			}
		}
	case sqlparse.ChangeAddColumn:
		if t := c.lookup(ch.Table); t != nil && len(ch.Columns) == 1 {
			if t.Column(ch.Columns[0].Name) == nil {
				t.addColumn(ch.Columns[0], pos)
			}
			for _, key := range ch.Keys {
				c.addKey(t, key)
			}
		}
	case sqlparse.ChangeDropColumn:
		if t := c.lookup(ch.Table); t != nil {
			t.dropColumn(ch.Name)
		}
	case sqlparse.ChangeRenameColumn:
		if t := c.lookup(ch.Table); t != nil {
			if col := t.Column(ch.Name); col != nil && ch.NewName != "" {
				col.Name = ch.NewName
				t.renameInKeys(ch.Name, ch.NewName)
			}
		}
	case sqlparse.ChangeColumnType:
		if t := c.lookup(ch.Table); t != nil && len(ch.Columns) == 1 {
			if col := t.Column(ch.Columns[0].Name); col != nil {
				col.Type, col.Array = ch.Columns[0].Type, ch.Columns[0].Array
				col.Pos = pos(ch.Columns[0].Span)
			}
		}
	case sqlparse.ChangeAddKey:
		if t := c.lookup(ch.Table); t != nil && len(ch.Keys) == 1 {
			c.addKey(t, ch.Keys[0])
		}
	case sqlparse.ChangeDropConstraint:
		if t := c.lookup(ch.Table); t != nil {
			t.dropKey(ch.Name)
		}
	case sqlparse.ChangeCreateIndex:
		t := c.lookup(ch.Table)
		if t == nil || len(ch.Keys) != 1 {
			return
		}
		key := ch.Keys[0]
		if ch.Index.Name != "" {
			c.indexes[tableKey{t.Schema, ch.Index.Name}] = indexEntry{tableKey{t.Schema, t.Name}, key}
		}
		if !key.Partial {
			t.addUnique(key.Columns)
		}
	case sqlparse.ChangeDropIndex:
		if ik, ix, ok := c.index(ch.Index); ok {
			delete(c.indexes, ik)
			if t := c.tables[ix.table]; t != nil && !ix.key.Partial {
				t.removeUnique(ix.key.Columns)
			}
		}
	case sqlparse.ChangeCreateTrigger:
		if t := c.lookup(ch.Table); t != nil && ch.Trigger != nil {
			t.dropTrigger(ch.Trigger.Name) // CREATE OR REPLACE TRIGGER
			t.Triggers = append(t.Triggers, &Trigger{Def: ch.Trigger, Pos: pos(ch.Table.Span)})
		}
	case sqlparse.ChangeDropTrigger:
		if t := c.lookup(ch.Table); t != nil {
			t.dropTrigger(ch.Name)
		}
	case sqlparse.ChangeCreateFunction:
		if ch.Function != nil {
			c.functions[ch.Function.Name] = &function{ch.Function, pos(ch.Table.Span)}
		}
	case sqlparse.ChangeDropFunction:
		delete(c.functions, ch.Name)
	case sqlparse.ChangeRenameIndex:
		if ik, ix, ok := c.index(ch.Index); ok && ch.NewName != "" {
			delete(c.indexes, ik)
			c.indexes[tableKey{ik.schema, ch.NewName}] = ix
		}
	}
}

func (t *Table) dropTrigger(name string) {
	t.Triggers = slices.DeleteFunc(t.Triggers, func(tr *Trigger) bool { return tr.Def.Name == name })
}

// Check is one check a row trigger makes before a write of its table:
// what Aurora DSQL, which has no triggers, no longer does.
type Check struct {
	sqlparse.TriggerCheck
	Trigger *Trigger
	// Function names the trigger's function; FuncPos is where the check
	// is, in the function's body.
	Function string
	FuncPos  Pos
}

// Checks returns the checks of t's row triggers that run before event
// (sqlparse.OnUpdate or OnDelete): refusals and version bumps read from
// their PL/pgSQL functions, and, for a function that refuses whatever it
// is called for, the trigger's WHEN condition.
func (c *Catalog) Checks(t *Table, event uint8) []Check {
	var out []Check
	for _, tr := range t.Triggers {
		d := tr.Def
		if !d.Before || !d.Row || d.Events&event == 0 {
			continue
		}
		fn := c.functions[d.Function]
		if fn == nil {
			continue
		}
		for _, ck := range fn.def.Checks {
			if ck.Kind == sqlparse.CheckRefuse && ck.Cond == "" {
				if d.When == "" {
					continue // a table no write may change: nothing the code relies on
				}
				ck = sqlparse.RefusalOf(d.When)
			}
			pos := fn.pos
			if pos.Line > 0 && ck.Line > 0 {
				pos.Line += ck.Line - 1
			}
			out = append(out, Check{TriggerCheck: ck, Trigger: tr, Function: d.Function, FuncPos: pos})
		}
	}
	return out
}

// index finds a unique index by its (possibly qualified) name.
func (c *Catalog) index(t sqlparse.Table) (tableKey, indexEntry, bool) {
	if t.Schema != "" {
		ik := tableKey{t.Schema, t.Name}
		ix, ok := c.indexes[ik]
		return ik, ix, ok
	}
	for ik, ix := range c.indexes {
		if ik.name == t.Name {
			return ik, ix, true
		}
	}
	return tableKey{}, indexEntry{}, false
}

func (t *Table) addColumn(col sqlparse.ColumnDef, pos func(sqlparse.Span) Pos) {
	t.Columns = append(t.Columns, &Column{Name: col.Name, Type: col.Type, Array: col.Array, Pos: pos(col.Span)})
}

func (c *Catalog) addKey(t *Table, key sqlparse.Key) {
	cols := key.Columns
	if key.UsingIndex != "" {
		ix, ok := c.indexes[tableKey{t.Schema, key.UsingIndex}]
		if !ok || ix.key.Partial {
			return
		}
		cols = ix.key.Columns
	}
	if len(cols) == 0 || key.Partial {
		return
	}
	cols = slices.Clone(cols)
	if key.Name != "" {
		t.keyNames[key.Name] = cols
	}
	if key.Primary {
		t.PrimaryKey = cols
		t.removeUnique(cols) // USING INDEX promotes a unique index
		return
	}
	t.addUnique(cols)
}

func (t *Table) addUnique(cols []string) {
	if len(cols) == 0 || slices.Equal(cols, t.PrimaryKey) {
		return
	}
	for _, u := range t.Uniques {
		if slices.Equal(u, cols) {
			return
		}
	}
	t.Uniques = append(t.Uniques, slices.Clone(cols))
}

func (t *Table) removeUnique(cols []string) {
	t.Uniques = slices.DeleteFunc(t.Uniques, func(u []string) bool { return slices.Equal(u, cols) })
}

func (t *Table) dropKey(name string) {
	cols, ok := t.keyNames[name]
	if !ok {
		return
	}
	delete(t.keyNames, name)
	if slices.Equal(cols, t.PrimaryKey) {
		t.PrimaryKey = nil
		return
	}
	t.removeUnique(cols)
}

// dropColumn removes a column and every key that contains it, as
// PostgreSQL drops the constraints and indexes over a dropped column.
func (t *Table) dropColumn(name string) {
	if slices.Contains(t.PrimaryKey, name) {
		return // Aurora DSQL refuses it: 0A000 cannot drop primary key column
	}
	t.Columns = slices.DeleteFunc(t.Columns, func(c *Column) bool { return c.Name == name })
	t.Uniques = slices.DeleteFunc(t.Uniques, func(u []string) bool { return slices.Contains(u, name) })
}

func (t *Table) renameInKeys(old, new string) {
	rename := func(cols []string) {
		for i, c := range cols {
			if c == old {
				cols[i] = new
			}
		}
	}
	rename(t.PrimaryKey)
	for _, u := range t.Uniques {
		rename(u)
	}
	for _, cols := range t.keyNames {
		rename(cols)
	}
}

// lines maps byte offsets of a text to 1-based line numbers.
type lines []int // offsets where lines start

func newLines(text string) lines {
	l := lines{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			l = append(l, i+1)
		}
	}
	return l
}

func (l lines) line(off int) int {
	return sort.Search(len(l), func(i int) bool { return l[i] > off })
}

// Describe renders the catalog for tests and debugging: a line per
// table with its columns and keys.
func (c *Catalog) Describe() string {
	var b strings.Builder
	for _, t := range c.Tables() {
		fmt.Fprintf(&b, "%s.%s(", t.Schema, t.Name)
		for i, col := range t.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(col.Name + " " + col.Type)
			if col.Array {
				b.WriteString("[]")
			}
		}
		b.WriteString(")")
		if t.PrimaryKey != nil {
			fmt.Fprintf(&b, " pk(%s)", strings.Join(t.PrimaryKey, ","))
		}
		for _, u := range t.Uniques {
			fmt.Fprintf(&b, " unique(%s)", strings.Join(u, ","))
		}
		b.WriteString("\n")
	}
	return b.String()
}
