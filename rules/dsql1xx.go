package rules

import (
	"strings"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// Helpers shared by the compatibility rules DSQL101-DSQL110.

var noFacts = &sqlparse.Facts{}

// factsOf returns the statement's compatibility facts, never nil.
func factsOf(st *sqlparse.Statement) *sqlparse.Facts {
	if st.Facts == nil {
		return noFacts
	}
	return st.Facts
}

// column is a column definition with where it comes from.
type column struct {
	*sqlparse.Column
	added bool // ALTER TABLE ADD COLUMN, not CREATE TABLE
}

// columnsOf returns the columns a statement defines: those of CREATE TABLE
// and those added by ALTER TABLE ADD COLUMN.
func columnsOf(f *sqlparse.Facts) []column {
	var out []column
	if f.Table != nil {
		for i := range f.Table.Columns {
			out = append(out, column{&f.Table.Columns[i], false})
		}
	}
	if f.Alter != nil {
		for _, c := range f.Alter.Cmds {
			if c.Kind == sqlparse.AlterAddColumn && c.Column != nil {
				out = append(out, column{c.Column, true})
			}
		}
	}
	return out
}

// textOf returns the source text of a span, or "" when the span does not
// lie in the text.
func textOf(ctx *Context, sp sqlparse.Span) string {
	if sp.Start < 0 || sp.End > len(ctx.Text) || sp.Start >= sp.End {
		return ""
	}
	return ctx.Text[sp.Start:sp.End]
}

// lastWord returns the last space-separated word of s.
func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// insertion is a fix that inserts text at offset at.
func insertion(message string, at int, text string) *Fix {
	return &Fix{Message: message, Edits: []Edit{{Span: sqlparse.Span{Start: at, End: at}, New: text}}}
}

// validInsert reports whether offset at lies in the text.
func validInsert(ctx *Context, at int) bool { return at > 0 && at <= len(ctx.Text) }

// sqlType names a type the way PostgreSQL's messages do.
func sqlType(t sqlparse.TypeRef) string {
	name := t.Name
	switch name {
	case "int2":
		name = "smallint"
	case "int4":
		name = "integer"
	case "int8":
		name = "bigint"
	case "varbit":
		name = "bit varying"
	case "bpchar":
		name = "character"
	case "float4":
		name = "real"
	case "float8":
		name = "double precision"
	}
	if t.Array {
		name += "[]"
	}
	return name
}

// builtin reports whether a type name is unqualified or pg_catalog's.
func builtin(t sqlparse.TypeRef) bool { return t.Schema == "" || t.Schema == "pg_catalog" }

// targetNote says which target a date-gated finding was made for.
func targetNote(ctx *Context) string { return " (target " + ctx.Config.Target.String() + ")" }
