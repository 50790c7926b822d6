package rules

import "github.com/dsqllint/dsqllint/sqlparse"

// UnsupportedTableFeature is DSQL106.
var UnsupportedTableFeature = register(&Rule{
	ID:       "DSQL106",
	Name:     "unsupported-table-feature",
	Severity: Error,
	Summary:  "temporary/unlogged tables, partitions, INHERITS, COLLATE, exclusion constraints, TABLESAMPLE",
	check:    checkTableFeature,
})

var tableClauses = map[string]string{
	"TEMPORARY":    "TEMPORARY table: Aurora DSQL has none (0A000 TEMPORARY or TEMP table not supported for CREATE TABLE); use a CTE, or a regular table keyed by session",
	"UNLOGGED":     "UNLOGGED table: Aurora DSQL has none (0A000 UNLOGGED table not supported for CREATE TABLE); drop UNLOGGED",
	"PARTITION BY": "PARTITION BY: Aurora DSQL does not partition tables by declaration (0A000); drop it, DSQL distributes rows by key itself",
	"PARTITION OF": "PARTITION OF: Aurora DSQL has no table partitions (0A000); use one table",
	"INHERITS":     "INHERITS: Aurora DSQL has no table inheritance (0A000); flatten into one table",
	"WITH":         "storage parameters (WITH ...): Aurora DSQL does not take them on CREATE TABLE (0A000); drop the WITH clause",
	"ON COMMIT":    "ON COMMIT: Aurora DSQL has no temporary tables (0A000); drop it",
	"TABLESPACE":   "TABLESPACE: Aurora DSQL manages storage itself (0A000); drop the clause",
}

func checkTableFeature(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
	f := factsOf(st)
	if f.Table != nil {
		for _, c := range f.Table.Clauses {
			if msg, ok := tableClauses[c.Name]; ok {
				report(c.Span, msg, nil)
			}
		}
		for _, con := range f.Table.Constraints {
			if con.Kind == sqlparse.ConExclusion {
				report(con.Span, "exclusion constraint: Aurora DSQL does not support EXCLUDE (0A000); check for overlaps in the application under a lock row", nil)
			}
		}
	}
	if f.Alter != nil {
		for _, c := range f.Alter.Cmds {
			if c.Kind == sqlparse.AlterAddConstraint && c.Constraint != nil && c.Constraint.Kind == sqlparse.ConExclusion {
				report(c.Constraint.Span, "exclusion constraint: Aurora DSQL does not support EXCLUDE (0A000); check for overlaps in the application under a lock row", nil)
			}
		}
	}
	for _, col := range columnsOf(f) {
		if col.Collate {
			report(col.CollateSpan, "COLLATE on column "+col.Name+": Aurora DSQL databases use the C collation only (COLLATE clause not supported); drop the clause", nil)
		}
	}
	if st.Kind != sqlparse.KindUnparsed {
		for _, c := range f.Clauses {
			if c.Name == "TABLESAMPLE" {
				report(c.Span, "TABLESAMPLE is not supported by Aurora DSQL (0A000 TABLESAMPLE clause not supported); sample with WHERE on a random key, or ORDER BY random() LIMIT n on small tables", nil)
			}
		}
	}
}
