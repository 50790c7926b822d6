package rules

import (
	"fmt"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// UnsupportedColumnType is DSQL107.
var UnsupportedColumnType = register(&Rule{
	ID:       "DSQL107",
	Name:     "unsupported-column-type",
	Severity: Error,
	Summary:  "column types Aurora DSQL cannot store: arrays, inet, money, xml, geometric, text search, ranges, bit strings",
	check:    checkColumnType,
})

// storable maps the types DSQL rejects as column types to what to use.
var notStorable = map[string]string{
	"inet": "text", "cidr": "text", "macaddr": "text", "macaddr8": "text",
	"money": "numeric(19, 4)", "xml": "text",
	"point": "numeric columns", "line": "numeric columns", "lseg": "numeric columns", "box": "numeric columns",
	"path": "numeric columns", "polygon": "numeric columns", "circle": "numeric columns",
	"tsvector": "text (search outside the database)", "tsquery": "text",
	"int4range": "two bound columns", "int8range": "two bound columns", "numrange": "two bound columns",
	"tsrange": "two bound columns", "tstzrange": "two bound columns", "daterange": "two bound columns",
	"int4multirange": "a child table of ranges", "int8multirange": "a child table of ranges", "nummultirange": "a child table of ranges",
	"tsmultirange": "a child table of ranges", "tstzmultirange": "a child table of ranges", "datemultirange": "a child table of ranges",
	"bit": "bytea or an integer", "varbit": "bytea", "pg_lsn": "text or numeric",
	"txid_snapshot": "text", "pg_snapshot": "text",
}

func checkColumnType(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
	for _, col := range columnsOf(factsOf(st)) {
		t := col.Type
		if !builtin(t) || t.Name == "" {
			continue
		}
		name := sqlType(t)
		switch use, bad := notStorable[t.Name]; {
		case t.Array:
			report(t.Span, "column "+col.Name+" has array type "+name+": Aurora DSQL cannot store arrays (0A000 datatype "+name+
				" not supported); use a child table, or a json column", nil)
		case bad:
			report(t.Span, "column "+col.Name+" has type "+name+": Aurora DSQL cannot store it (0A000 datatype "+name+" not supported); use "+use, nil)
		case t.Name == "numeric" && len(t.Mods) > 0 && (t.Mods[0] > 38 || (len(t.Mods) > 1 && t.Mods[1] > 37)) && ctx.Config.Target.Before(numericSince):
			report(t.Span, fmt.Sprintf("column %s has type numeric(%s): Aurora DSQL allows precision up to 38 and scale up to 37 before 2026-08-25%s; narrow it",
				col.Name, mods(t.Mods), targetNote(ctx)), nil)
		case t.Name == "varchar" && len(t.Mods) > 0 && t.Mods[0] > 65535:
			report(t.Span, fmt.Sprintf("column %s has type varchar(%d): Aurora DSQL limits varchar to 65,535 bytes (54000 Datatype limit greater than 65535 bytes not supported for varchar); use text", col.Name, t.Mods[0]), nil)
		case t.Name == "bpchar" && len(t.Mods) > 0 && t.Mods[0] > 4096:
			report(t.Span, fmt.Sprintf("column %s has type char(%d): Aurora DSQL limits char to 4,096 bytes (54000); use text", col.Name, t.Mods[0]), nil)
		}
	}
}

func mods(m []int) string {
	s := ""
	for i, x := range m {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(x)
	}
	return s
}
