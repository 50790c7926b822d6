package sqlparse

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// ChangeKind is the kind of change a DDL statement makes to the shape of
// the tables: what a schema catalog replays.
type ChangeKind uint8

const (
	ChangeCreateTable    ChangeKind = iota + 1 // Columns, Keys, Like
	ChangeDropTable                            // Table
	ChangeRenameTable                          // Table, NewName
	ChangeAddColumn                            // Table, Columns[0]
	ChangeDropColumn                           // Table, Name
	ChangeRenameColumn                         // Table, Name, NewName
	ChangeColumnType                           // Table, Columns[0] with its new type
	ChangeAddKey                               // Table, Keys[0] (ADD CONSTRAINT PRIMARY KEY / UNIQUE)
	ChangeDropConstraint                       // Table, Name
	ChangeCreateIndex                          // Table, Index, Keys[0] when UNIQUE
	ChangeDropIndex                            // Index
	ChangeRenameIndex                          // Index, NewName
	ChangeCreateTrigger                        // Table, Trigger
	ChangeDropTrigger                          // Table, Name
	ChangeCreateFunction                       // Function
	ChangeDropFunction                         // Name
)

// Change is one change of a table's shape made by a DDL statement.
type Change struct {
	Kind  ChangeKind
	Table Table
	// Index is the index created, dropped or renamed.
	Index Table
	// Columns are the columns CREATE TABLE defines or ADD COLUMN adds; for
	// ChangeColumnType, the column with its new type.
	Columns []ColumnDef
	// Keys are the PRIMARY KEY and UNIQUE constraints of CREATE TABLE (on
	// a column or the table), the key ADD CONSTRAINT adds, or the key of a
	// unique index.
	Keys []Key
	// Name is the dropped or renamed column or constraint; NewName is the
	// new name of a renamed table, column or index.
	Name, NewName string
	// Like names the table CREATE TABLE ... (LIKE t) copies columns from.
	Like *Table
	// IfNotExists marks CREATE ... IF NOT EXISTS, which leaves an existing
	// table as it is.
	IfNotExists bool
	// Trigger and Function are what CREATE TRIGGER and CREATE FUNCTION
	// define.
	Trigger  *TriggerDef
	Function *FunctionDef
}

// ColumnDef is a column as a schema catalog keeps it.
type ColumnDef struct {
	Name string // lower-cased, as the statement model folds every name
	// Type is the lower-cased last part of the type name as the parser
	// keeps it: "int8" for bigint, "timestamptz", "varchar", "serial".
	Type  string
	Array bool
	// Span covers the column's name.
	Span Span
}

// Key is a PRIMARY KEY or UNIQUE constraint, or a unique index.
type Key struct {
	Name    string // the constraint or index name, when written
	Primary bool
	Columns []string
	// Partial marks a unique index with a WHERE clause (unique only among
	// the rows it covers) or on expressions: no key of the whole table.
	Partial bool
	// UsingIndex is the index ADD CONSTRAINT ... USING INDEX promotes.
	UsingIndex string
}

// schemaChanges models what a parsed DDL statement does to tables.
func (b *builder) schemaChanges(node *pg.Node) []Change {
	switch {
	case node.GetCreateStmt() != nil:
		return b.createChanges(node.GetCreateStmt())
	case node.GetAlterTableStmt() != nil:
		a := node.GetAlterTableStmt()
		if a.Objtype != pg.ObjectType_OBJECT_TABLE {
			return nil
		}
		return b.alterChanges(a)
	case node.GetIndexStmt() != nil:
		return b.indexChanges(node.GetIndexStmt())
	case node.GetRenameStmt() != nil:
		return b.renameChanges(node.GetRenameStmt())
	case node.GetDropStmt() != nil:
		return dropChanges(node.GetDropStmt())
	case node.GetCreateTrigStmt() != nil:
		return b.triggerChange(node.GetCreateTrigStmt())
	case node.GetCreateFunctionStmt() != nil:
		return b.functionChange(node.GetCreateFunctionStmt())
	}
	return nil
}

func (b *builder) createChanges(c *pg.CreateStmt) []Change {
	if c.Partbound != nil || c.Relation == nil {
		return nil // a partition adds no shape of its own
	}
	ch := Change{Kind: ChangeCreateTable, Table: b.table(c.Relation), IfNotExists: c.IfNotExists}
	for _, e := range c.TableElts {
		switch {
		case e.GetColumnDef() != nil:
			cd := e.GetColumnDef()
			col := b.columnDef(cd)
			ch.Columns = append(ch.Columns, col)
			for _, n := range cd.Constraints {
				if k, ok := key(n.GetConstraint(), []string{col.Name}); ok {
					ch.Keys = append(ch.Keys, k)
				}
			}
		case e.GetConstraint() != nil:
			if k, ok := key(e.GetConstraint(), nil); ok {
				ch.Keys = append(ch.Keys, k)
			}
		case e.GetTableLikeClause() != nil:
			t := b.table(e.GetTableLikeClause().Relation)
			ch.Like = &t
		}
	}
	return []Change{ch}
}

// key reads a PRIMARY KEY or UNIQUE constraint; cols are the columns of a
// column constraint.
func key(c *pg.Constraint, cols []string) (Key, bool) {
	if c == nil || (c.Contype != pg.ConstrType_CONSTR_PRIMARY && c.Contype != pg.ConstrType_CONSTR_UNIQUE) {
		return Key{}, false
	}
	k := Key{Name: c.Conname, Primary: c.Contype == pg.ConstrType_CONSTR_PRIMARY, UsingIndex: c.Indexname}
	if len(c.Keys) > 0 {
		cols = nil
		for _, n := range c.Keys {
			cols = append(cols, strings.ToLower(n.GetString_().GetSval()))
		}
	}
	k.Columns = cols
	return k, len(cols) > 0 || k.UsingIndex != ""
}

func (b *builder) columnDef(cd *pg.ColumnDef) ColumnDef {
	t := b.typeRef(cd.TypeName)
	col := ColumnDef{Name: strings.ToLower(cd.Colname), Type: t.Name, Array: t.Array}
	if i := b.tokLoc(cd.Location); i >= 0 {
		col.Span = b.span(i)
	}
	return col
}

func (b *builder) alterChanges(a *pg.AlterTableStmt) []Change {
	t := b.table(a.Relation)
	var out []Change
	for _, n := range a.Cmds {
		cmd := n.GetAlterTableCmd()
		if cmd == nil {
			continue
		}
		ch := Change{Table: t, Name: strings.ToLower(cmd.Name)}
		switch cmd.Subtype {
		case pg.AlterTableType_AT_AddColumn:
			cd := cmd.Def.GetColumnDef()
			if cd == nil {
				continue
			}
			col := b.columnDef(cd)
			ch.Kind, ch.Columns = ChangeAddColumn, []ColumnDef{col}
			for _, n := range cd.Constraints {
				if k, ok := key(n.GetConstraint(), []string{col.Name}); ok {
					ch.Keys = append(ch.Keys, k)
				}
			}
		case pg.AlterTableType_AT_DropColumn:
			ch.Kind = ChangeDropColumn
		case pg.AlterTableType_AT_AlterColumnType:
			cd := cmd.Def.GetColumnDef()
			if cd == nil {
				continue
			}
			col := b.columnDef(cd)
			col.Name = ch.Name
			ch.Kind, ch.Columns = ChangeColumnType, []ColumnDef{col}
		case pg.AlterTableType_AT_AddConstraint:
			k, ok := key(cmd.Def.GetConstraint(), nil)
			if !ok {
				continue
			}
			ch.Kind, ch.Keys = ChangeAddKey, []Key{k}
		case pg.AlterTableType_AT_DropConstraint:
			ch.Kind = ChangeDropConstraint
		default:
			continue
		}
		out = append(out, ch)
	}
	return out
}

func (b *builder) indexChanges(s *pg.IndexStmt) []Change {
	ch := Change{Kind: ChangeCreateIndex, Table: b.table(s.Relation), Index: Table{Schema: strings.ToLower(s.Relation.GetSchemaname()), Name: strings.ToLower(s.Idxname)}, IfNotExists: s.IfNotExists}
	if s.Unique || s.Primary {
		k := Key{Name: s.Idxname, Primary: s.Primary, Partial: s.WhereClause != nil}
		for _, p := range s.IndexParams {
			ie := p.GetIndexElem()
			if ie == nil || ie.Name == "" {
				k.Partial = true // an expression: no plain column key
				continue
			}
			k.Columns = append(k.Columns, strings.ToLower(ie.Name))
		}
		ch.Keys = []Key{k}
	}
	return []Change{ch}
}

func (b *builder) renameChanges(r *pg.RenameStmt) []Change {
	switch r.RenameType {
	case pg.ObjectType_OBJECT_TABLE:
		return []Change{{Kind: ChangeRenameTable, Table: b.table(r.Relation), NewName: strings.ToLower(r.Newname)}}
	case pg.ObjectType_OBJECT_COLUMN:
		if r.RelationType != pg.ObjectType_OBJECT_TABLE {
			return nil
		}
		return []Change{{Kind: ChangeRenameColumn, Table: b.table(r.Relation), Name: strings.ToLower(r.Subname), NewName: strings.ToLower(r.Newname)}}
	case pg.ObjectType_OBJECT_INDEX:
		return []Change{{Kind: ChangeRenameIndex, Index: b.table(r.Relation), NewName: strings.ToLower(r.Newname)}}
	}
	return nil
}

func dropChanges(d *pg.DropStmt) []Change {
	kind := ChangeDropTable
	switch d.RemoveType {
	case pg.ObjectType_OBJECT_TABLE:
	case pg.ObjectType_OBJECT_INDEX:
		kind = ChangeDropIndex
	case pg.ObjectType_OBJECT_TRIGGER:
		kind = ChangeDropTrigger
	case pg.ObjectType_OBJECT_FUNCTION:
		var out []Change
		for _, o := range d.Objects {
			if owa := o.GetObjectWithArgs(); owa != nil && len(owa.Objname) > 0 {
				out = append(out, Change{Kind: ChangeDropFunction, Name: strings.ToLower(opName(owa.Objname))})
			}
		}
		return out
	default:
		return nil
	}
	var out []Change
	for _, o := range d.Objects {
		var parts []string
		for _, n := range o.GetList().GetItems() {
			parts = append(parts, strings.ToLower(n.GetString_().GetSval()))
		}
		if len(parts) == 0 {
			continue
		}
		t := Table{Name: parts[len(parts)-1]}
		if len(parts) > 1 {
			t.Schema = parts[len(parts)-2]
		}
		switch kind {
		case ChangeDropTrigger: // DROP TRIGGER name ON [schema.]table
			if len(parts) < 2 {
				continue
			}
			t = Table{Name: parts[len(parts)-2]}
			if len(parts) > 2 {
				t.Schema = parts[len(parts)-3]
			}
			out = append(out, Change{Kind: kind, Table: t, Name: parts[len(parts)-1]})
		case ChangeDropTable:
			out = append(out, Change{Kind: kind, Table: t})
		default:
			out = append(out, Change{Kind: kind, Index: t})
		}
	}
	return out
}

// translateChanges copies changes with every span passed through sp.
func translateChanges(cs []Change, sp func(Span) Span) []Change {
	if cs == nil {
		return nil
	}
	out := make([]Change, len(cs))
	for i, c := range cs {
		c.Table.Span, c.Index.Span = sp(c.Table.Span), sp(c.Index.Span)
		if c.Columns != nil {
			cols := make([]ColumnDef, len(c.Columns))
			for j, col := range c.Columns {
				col.Span = sp(col.Span)
				cols[j] = col
			}
			c.Columns = cols
		}
		if c.Like != nil {
			l := *c.Like
			l.Span = sp(l.Span)
			c.Like = &l
		}
		out[i] = c
	}
	return out
}
