package rules

import (
	"slices"

	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/sqlparse"
)

// RowLimit is DSQL109.
var RowLimit = register(&Rule{
	ID:       "DSQL109",
	Name:     "row-limit",
	Severity: Warning,
	Summary:  "unbounded writes that can exceed Aurora DSQL's 3,000-row transaction limit",
	check: func(ctx *Context, st *sqlparse.Statement, report func(sqlparse.Span, string, *Fix)) {
		f := factsOf(st)
		if st.Fragment || f.Holes {
			return // part of the text is written elsewhere
		}
		const limit = "Aurora DSQL fails a transaction that modifies more than 3,000 rows (54000 transaction row limit exceeded)"
		switch w := st.Write; {
		case (st.Kind == sqlparse.KindUpdate || st.Kind == sqlparse.KindDelete) && w != nil && !w.HasWhere:
			if st.Kind == sqlparse.KindUpdate && oneRowTable(ctx, w.Table) {
				return
			}
			verb := "UPDATE of "
			if st.Kind == sqlparse.KindDelete {
				verb = "DELETE from "
			}
			report(st.KeywordSpan, verb+tableName(w.Table)+" without WHERE writes every row: "+limit+
				"; work in batches by key (WHERE id > $last ... LIMIT n in a subquery), one transaction each", nil)
		case st.Kind == sqlparse.KindInsert && f.InsertSelect != nil && f.InsertSelect.ReadsTable && !f.InsertSelect.Limit && !pinsOneRow(ctx.Config, f.InsertSelect):
			report(st.KeywordSpan, "INSERT ... SELECT from a table with no LIMIT can insert any number of rows: "+limit+
				"; copy in batches (ORDER BY key LIMIT n, repeated), one transaction each", nil)
		}
	},
})

// pinsOneRow reports an INSERT ... SELECT whose source WHERE pins a key of
// the one table it reads: the schema's primary or a unique key, or, where
// the schema does not know the table, an id column.
func pinsOneRow(cfg *Config, is *sqlparse.InsertSelect) bool {
	if is.From.Unknown() || len(is.Conds) == 0 {
		return false
	}
	if t := tableOf(cfg, is.From); t != nil {
		return pinnedKey(t, is.Conds)
	}
	return slices.Contains(fencing.KeyColumns(is.Conds), "id")
}

// oneRowTable reports a table kept as one row (a migration version, a
// checkpoint): the package creates it in its own Go strings with no key,
// and no statement of the package picks its rows by a column. Such a
// table's updates have no WHERE because there is one row to write. A
// table of the project's schema files is not judged so: other code (an
// ORM) may pick its rows.
func oneRowTable(ctx *Context, table sqlparse.Table) bool {
	if table.Unknown() || ctx.Fences == nil || ctx.Fences.Local == nil {
		return false
	}
	t := ctx.Fences.Local.Table(table.Schema, table.Name)
	if t == nil || len(t.Keys()) > 0 {
		return false
	}
	u := ctx.Fences.Usage(table.Name)
	return u == nil || len(u.Compared) == 0
}

func tableName(t sqlparse.Table) string {
	if t.Unknown() {
		return "the table"
	}
	return t.Name
}
