package occtest_test

import (
	"database/sql"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/dsqllint/dsqllint/dsqlcheck"
)

// checked reopens db's database with every connection's statements
// checked by dsqlcheck, which records its findings and refuses nothing.
func checked(tb testing.TB, db *sql.DB) *sql.DB {
	tb.Helper()
	conn, err := db.Conn(tb.Context())
	if err != nil {
		tb.Fatal(err)
	}
	var cfg *pgx.ConnConfig
	err = conn.Raw(func(c any) error {
		cfg = c.(*stdlib.Conn).Conn().Config().Copy()
		return nil
	})
	conn.Close()
	if err != nil {
		tb.Fatal(err)
	}
	wrapped := sql.OpenDB(dsqlcheck.New().WrapConnector(stdlib.GetConnector(*cfg)))
	tb.Cleanup(func() { wrapped.Close() })
	return wrapped
}
