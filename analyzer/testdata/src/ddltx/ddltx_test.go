package ddltx

import (
	"database/sql"
	"fmt"
	"testing"
)

// A test's scripts: run whole by a query call, one implicit transaction;
// held in a field, the test decides how they run (a splitter's input).
type step struct {
	Name   string
	Script string
}

var steps = []step{
	{Name: "seed", Script: "CREATE TABLE t (id int); INSERT INTO t VALUES (1)"},
}

func TestSeed(t *testing.T) {
	var db *sql.DB
	db.Exec("CREATE TABLE u (id int); INSERT INTO u VALUES (1)") // want `DSQL104 ddl-transaction: INSERT runs in the same Exec string`
	_ = steps
}

func TestSwap(t *testing.T) {
	var db *sql.DB
	db.Exec(fmt.Sprintf(`ALTER TABLE %[1]s RENAME TO %[1]s_old;
		ALTER TABLE %[1]s_new RENAME TO %[1]s;`, "t")) // want `DSQL104 ddl-transaction: ALTER TABLE runs in the same Exec string`
}
