package dsqlcheck

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"

	"github.com/dsqllint/dsqllint/sqlparse"
)

// Refusals that need the schema, asked of the server the checked program
// runs on: its catalog is the schema, whatever migrations made it.

// isKeyColumn is true on the server when a column (the second operand)
// is part of a table's (the first, a name to_regclass reads) primary key.
const isKeyColumn = `EXISTS (SELECT 1 FROM pg_catalog.pg_index i
JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
WHERE i.indrelid = to_regclass(%s) AND i.indisprimary AND a.attname = %s)`

// primaryKeyColumn asks the server whether column $2 is part of table
// $1's primary key.
var primaryKeyColumn = "SELECT " + fmt.Sprintf(isKeyColumn, "$1", "$2")

// keyRefusal returns DSQL's refusal of a statement that drops a
// primary-key column (0A000 cannot drop primary key column id), recording
// the finding; nil when no column it drops is one, or the server cannot
// tell.
func (k *conn) keyRefusal(ctx context.Context, v *verdict, sql string) *Error {
	if len(v.dropColumns) == 0 || !k.c.cfg.Enabled("DSQL108") {
		return nil
	}
	q, ok := k.base.(driver.QueryerContext)
	if !ok {
		return nil
	}
	for _, ch := range v.dropColumns {
		table := qualifiedTable(ch)
		rows, err := q.QueryContext(ctx, primaryKeyColumn, []driver.NamedValue{{Ordinal: 1, Value: table}, {Ordinal: 2, Value: ch.Name}})
		if err != nil {
			return nil
		}
		dest := make([]driver.Value, 1)
		err = rows.Next(dest)
		rows.Close()
		if err != nil && err != io.EOF {
			return nil
		}
		if key, _ := dest[0].(bool); key {
			k.c.record("DSQL108", dropKeyMessage(ch.Name, table), sql)
			if k.c.reject {
				return dropKeyRefusal(ch.Name)
			}
		}
	}
	return nil
}

// qualifiedTable is a change's table as the catalog looks it up.
func qualifiedTable(ch sqlparse.Change) string {
	if ch.Table.Schema != "" {
		return ch.Table.Schema + "." + ch.Table.Name
	}
	return ch.Table.Name
}

func dropKeyMessage(column, table string) string {
	return message("DSQL108", "DROP COLUMN "+column+": Aurora DSQL cannot drop a primary-key column (0A000 cannot drop primary key column "+column+
		"), and "+column+" is in the primary key of "+table+"; re-create the table with the key it should have and copy the rows in batches")
}

func dropKeyRefusal(column string) *Error {
	return &Error{Code: "0A000", Message: "cannot drop primary key column " + column, Rule: "DSQL108"}
}
