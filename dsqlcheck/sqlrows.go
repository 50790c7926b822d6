package dsqlcheck

import (
	"context"
	"database/sql/driver"
	"io"
	"reflect"

	"github.com/jackc/pgx/v5"
)

// Rows modified by what database/sql's RowsAffected does not tell: DML
// read as rows (INSERT ... RETURNING), and each statement of a
// multi-statement string.

// countedRows counts the rows a DML query returns, one per row it
// modified, and accounts them when they are read to the end: over the
// row limit in a transaction, the transaction is aborted as DSQL aborts
// it, and the read fails with DSQL's error.
type countedRows struct {
	driver.Rows
	k   *conn
	ctx context.Context
	sql string
	n   int64
}

func (r *countedRows) Next(dest []driver.Value) error {
	err := r.Rows.Next(dest)
	if err == nil {
		r.n++
		return nil
	}
	if err == io.EOF {
		if e := r.k.c.modified(&r.k.st, r.n, r.sql, r.k.c.reject); e != nil {
			return r.k.refuse(r.ctx, e)
		}
	}
	return err
}

// The optional column facts of the driver's rows, where it has them;
// otherwise the answers database/sql gives rows without them.

func (r *countedRows) ColumnTypeScanType(i int) reflect.Type {
	if c, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return c.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

func (r *countedRows) ColumnTypeDatabaseTypeName(i int) string {
	if c, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return c.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *countedRows) ColumnTypeLength(i int) (int64, bool) {
	if c, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return c.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *countedRows) ColumnTypeNullable(i int) (bool, bool) {
	if c, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return c.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *countedRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	if c, ok := r.Rows.(driver.RowsColumnTypePrecisionScale); ok {
		return c.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

// counted wraps a DML query's rows; others are returned as they are.
func (k *conn) counted(ctx context.Context, v *verdict, sql string, rows driver.Rows) driver.Rows {
	if !v.dml || rows == nil {
		return rows
	}
	return &countedRows{Rows: rows, k: k, ctx: ctx, sql: sql}
}

// pgxConn is pgx's database/sql connection, which reaches the statements'
// own command tags.
type pgxConn interface{ Conn() *pgx.Conn }

// execEach runs a multi-statement text on pgx's connection and returns
// the rows each statement modified, summed (DSQL's limit is on the
// implicit transaction the statements share), and the last statement's
// count, which is what RowsAffected reports; ok is false when the
// connection is not pgx's.
func (k *conn) execEach(ctx context.Context, text string) (total, last int64, ok bool, err error) {
	pc, isPgx := k.base.(pgxConn)
	if !isPgx {
		return 0, 0, false, nil
	}
	results, err := pc.Conn().PgConn().Exec(ctx, text).ReadAll()
	if err != nil {
		return 0, 0, true, err
	}
	for _, r := range results {
		if n, modified := modifiedRows(r.CommandTag.String()); modified {
			total += n
		}
		last = r.CommandTag.RowsAffected()
	}
	return total, last, true, nil
}
