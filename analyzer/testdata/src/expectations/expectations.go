// Package expectations tells test doubles what SQL to expect: an
// expectation is no statement the program runs, and stays quiet; the
// same text run, and a literal handed to an ordinary function, are judged.
package expectations

import (
	"context"
	"database/sql"
	"regexp"
	"strings"
	"testing"

	sqlmock "github.com/DATA-DOG/go-sqlmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// MockConnMockRecorder is what mockgen writes for a connection's mock.
type MockConnMockRecorder struct{}

// ExecContext records an expected ExecContext.
func (*MockConnMockRecorder) ExecContext(ctx, query any, args ...any) *MockConnMockRecorder {
	return nil
}

// FakeConn is what counterfeiter writes.
type FakeConn struct{}

// ExecContextArgsForCall is an ordinary method of the fake.
func (*FakeConn) ExecContextReturnsOnCall(query string) {}

func expect(m sqlmock.Sqlmock, r *MockConnMockRecorder, f *FakeConn) {
	m.ExpectExec("DELETE FROM sessions")
	m.ExpectQuery(regexp.QuoteMeta("SELECT v FROM t WHERE id = $1 FOR SHARE"))
	r.ExecContext(context.Background(), "VACUUM")
	f.ExecContextReturnsOnCall("TRUNCATE sessions")
}

// A test's assertions and a substring search compare texts with SQL the
// program built: patterns, not statements.
func asserts(t *testing.T, captured string) bool {
	assert.Equal(t, "SELECT v FROM t WHERE id = $1 FOR SHARE", captured)
	require.Contains(t, captured, "DELETE FROM sessions")
	return strings.Contains(captured, "TRUNCATE sessions")
}

// A test's own helper takes a pattern (zitadel's expectExec wraps
// sqlmock): what regexp.QuoteMeta quotes is a pattern, whatever takes it.
type dbMock struct{}

func (m *dbMock) expectExec(pattern string) *dbMock { return m }

func patterns(m *dbMock) {
	m.expectExec(regexp.QuoteMeta("select pg_advisory_lock(1)"))
	regexp.MustCompile(`TRUNCATE \w+`)
}

// A fake executor compares what it is handed with a statement: the
// literal is compared, never run.
func fakeExec(stmt string) error {
	if stmt == "SAVEPOINT exec_stmt" {
		return nil
	}
	switch stmt {
	case "TRUNCATE sessions", "LOCK TABLE t":
		return nil
	}
	return nil
}

func note(s string) {}

func run(ctx context.Context, db *sql.DB) {
	db.ExecContext(ctx, "DELETE FROM sessions") // want `DSQL109 row-limit`
	note("TRUNCATE sessions")                   // want `DSQL105 unsupported-statement`
}
