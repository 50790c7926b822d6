package rules

// ConflictByMessage is DSQL012, reported by the analyzer where a test for
// a serialization failure reads PostgreSQL's wording of the error.
var ConflictByMessage = register(&Rule{
	ID:       "DSQL012",
	Name:     "conflict-by-message",
	Severity: Warning,
	Summary:  "a test for a serialization failure by PostgreSQL's message text, which Aurora DSQL's 40001 does not carry",
})

// ConflictByMessageMessage is DSQL012's message.
const ConflictByMessageMessage = "this test for a serialization failure reads PostgreSQL's wording of the error, which Aurora DSQL's does not use " +
	"(40001 change conflicts with another transaction (OC000)): on DSQL it never matches, and the transaction it would re-run fails instead; " +
	"test the SQLSTATE, 40001 (pgconn.PgError.Code, pq.Error.Code)"
