package unfenced

import (
	"database/sql"
	"testing"
)

// A test's setup moves rows into the state it needs: no other process
// races for them, and nothing is reported.
func TestSetup(t *testing.T) {
	var db *sql.DB
	db.Exec("UPDATE workflow_executions SET status = 'sleeping' WHERE id = $1 AND namespace = $2", 1, "n")
	db.Exec("DELETE FROM leases WHERE resource_id = $1", 1)
	// A fixture's cleanup: the test's tables hold a handful of rows.
	db.Exec("DELETE FROM leases")
	// What DSQL refuses whatever the rows is still reported in a test.
	db.Exec("TRUNCATE leases") // want `DSQL105 unsupported-statement: TRUNCATE`
}
