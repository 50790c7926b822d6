package dsqlcheck

import (
	"context"
	"database/sql/driver"
	"testing"
)

// nopConn answers every statement at once: the benchmarks measure the
// checker's own cost, not a database's.
type nopConn struct{}

func (nopConn) Prepare(string) (driver.Stmt, error) { return nil, driver.ErrSkip }
func (nopConn) Close() error                        { return nil }
func (nopConn) Begin() (driver.Tx, error)           { return nil, driver.ErrSkip }
func (nopConn) ExecContext(context.Context, string, []driver.NamedValue) (driver.Result, error) {
	return driver.RowsAffected(1), nil
}

// BenchmarkExecCached is the checker's cost per executed statement whose
// text it has seen: the base line is the bare connection's.
func BenchmarkExecCached(b *testing.B) {
	ctx := context.Background()
	for _, q := range []struct{ name, sql string }{
		{"select", "SELECT id, state FROM jobs WHERE id = $1"},
		{"update", "UPDATE jobs SET state = $1 WHERE id = $2 AND version = $3"},
	} {
		b.Run(q.name+"/bare", func(b *testing.B) {
			var base driver.ExecerContext = nopConn{}
			b.ReportAllocs()
			for b.Loop() {
				base.ExecContext(ctx, q.sql, nil)
			}
		})
		b.Run(q.name+"/checked", func(b *testing.B) {
			k := &conn{c: New(), base: nopConn{}}
			k.ExecContext(ctx, q.sql, nil) // parse once
			b.ReportAllocs()
			for b.Loop() {
				k.ExecContext(ctx, q.sql, nil)
			}
		})
	}
}
