package dsqlcheck

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"io"
)

// WrapConnector returns a connector whose connections check every
// statement they run (database/sql: sql.OpenDB(c.WrapConnector(base))).
func (c *Checker) WrapConnector(base driver.Connector) driver.Connector {
	return &connector{c: c, base: base}
}

// WrapDriver returns a driver whose connections check every statement
// they run, for sql.Register.
func (c *Checker) WrapDriver(base driver.Driver) driver.Driver {
	if dc, ok := base.(driver.DriverContext); ok {
		return &driverContext{wrappedDriver{c, base}, dc}
	}
	return &wrappedDriver{c, base}
}

type connector struct {
	c    *Checker
	base driver.Connector
}

func (k *connector) Connect(ctx context.Context) (driver.Conn, error) {
	bc, err := k.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{c: k.c, base: bc}, nil
}

func (k *connector) Driver() driver.Driver { return k.c.WrapDriver(k.base.Driver()) }

type wrappedDriver struct {
	c    *Checker
	base driver.Driver
}

func (d *wrappedDriver) Open(name string) (driver.Conn, error) {
	bc, err := d.base.Open(name)
	if err != nil {
		return nil, err
	}
	return &conn{c: d.c, base: bc}, nil
}

type driverContext struct {
	wrappedDriver
	dc driver.DriverContext
}

func (d *driverContext) OpenConnector(name string) (driver.Connector, error) {
	k, err := d.dc.OpenConnector(name)
	if err != nil {
		return nil, err
	}
	return d.c.WrapConnector(k), nil
}

// conn checks a connection's statements; database/sql uses a connection
// from one goroutine at a time, so its state needs no lock.
type conn struct {
	c    *Checker
	base driver.Conn
	st   txState
}

var (
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.Validator          = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
)

func (k *conn) Prepare(query string) (driver.Stmt, error) {
	return k.PrepareContext(context.Background(), query)
}

func (k *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	v := k.c.check(query)
	text := k.c.pgText(v, query)
	var bs driver.Stmt
	var err error
	if p, ok := k.base.(driver.ConnPrepareContext); ok {
		bs, err = p.PrepareContext(ctx, text)
	} else {
		bs, err = k.base.Prepare(text)
	}
	if err != nil {
		return nil, err
	}
	return &stmt{k: k, base: bs, v: v, sql: query}, nil
}

func (k *conn) Close() error { return k.base.Close() }

func (k *conn) Begin() (driver.Tx, error) {
	return k.BeginTx(context.Background(), driver.TxOptions{})
}

func (k *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if opts.Isolation != driver.IsolationLevel(sql.LevelDefault) {
		if e := k.c.isolation(sql.IsolationLevel(opts.Isolation).String(), "BEGIN", k.c.reject); e != nil {
			return nil, e
		}
	}
	var bt driver.Tx
	var err error
	if b, ok := k.base.(driver.ConnBeginTx); ok {
		bt, err = b.BeginTx(ctx, opts)
	} else {
		bt, err = k.base.Begin() //nolint:staticcheck // the driver offers nothing newer
	}
	if err != nil {
		return nil, err
	}
	k.st.begin()
	return &tx{k: k, base: bt}, nil
}

// exec checks a statement and runs it with run, which gets the text to
// send; DML outside a transaction runs in one when the checker refuses,
// so that a statement over the row limit can be undone as DSQL would.
func (k *conn) exec(ctx context.Context, query string, run func(text string) (driver.Result, error)) (driver.Result, error) {
	v := k.c.check(query)
	if v.commit && k.st.open && k.st.aborted == nil {
		// COMMIT in SQL: DSQL answers a too old transaction with an
		// error, and rolls it back. (An aborted one is aborted on the
		// server too, which answers COMMIT as DSQL does: ROLLBACK.)
		if e := k.c.ending(&k.st, query, k.c.reject); e != nil {
			k.st.end()
			_ = k.simple(ctx, "ROLLBACK")
			return nil, e
		}
	}
	if e := k.c.before(&k.st, v, query, k.c.reject); e != nil {
		return nil, k.refuse(ctx, e)
	}
	if e := k.keyRefusal(ctx, v, query); e != nil {
		return nil, k.refuse(ctx, e)
	}
	text := k.c.pgText(v, query)
	wrap := k.c.reject && !k.st.open && v.dml
	if wrap {
		if err := k.simple(ctx, "BEGIN"); err != nil {
			return nil, err
		}
	}
	var res driver.Result
	var err error
	total, each := int64(0), false
	if len(v.parts) > 0 && v.dml {
		var last int64
		total, last, each, err = k.execEach(ctx, text)
		res = driver.RowsAffected(last)
	}
	if !each {
		res, err = run(text)
		if err == nil && asyncAlter.MatchString(query) && len(v.parts) == 0 {
			k.c.recordJob(query, k.jobFailure(ctx))
		}
		if err == nil && v.dml {
			total, err = res.RowsAffected()
			if err != nil {
				total, err = 0, nil // the driver does not count
			}
		}
	}
	if err == nil && v.dml {
		if e := k.c.modified(&k.st, total, query, k.c.reject); e != nil {
			if wrap {
				_ = k.simple(ctx, "ROLLBACK")
			}
			return nil, k.refuse(ctx, e)
		}
	}
	if wrap {
		if err != nil {
			_ = k.simple(ctx, "ROLLBACK")
			return nil, err
		}
		if err := k.simple(ctx, "COMMIT"); err != nil {
			return nil, err
		}
	}
	if err == nil {
		k.sqlControl(v)
	}
	return res, err
}

// refuse answers a statement with DSQL's refusal e. Inside a transaction
// DSQL aborts the transaction with it, and so does refuse, on the server
// too: every later statement then gets 25P02 until ROLLBACK, and COMMIT
// rolls back, answered by the server as DSQL answers it, whatever the
// driver makes of that.
func (k *conn) refuse(ctx context.Context, e *Error) *Error {
	if k.st.open && e != errAborted {
		if k.st.aborted == nil {
			k.st.aborted = e
		}
		_ = k.simple(ctx, abortTx)
	}
	return e
}

// abortTx fails on the server, which aborts the transaction it runs in.
const abortTx = "DO $$BEGIN RAISE EXCEPTION 'dsqlcheck: the transaction is aborted, as Aurora DSQL aborts it after a refused statement'; END$$"

// sqlControl follows BEGIN and COMMIT written in SQL.
func (k *conn) sqlControl(v *verdict) {
	switch v.class {
	case classBegin:
		k.st.begin()
	case classEnd:
		k.st.end()
	}
}

// simple runs a statement of our own, unchecked.
// jobFailure reads, and clears, how the last ALTER TABLE ASYNC job on the
// connection failed; "" when it ran (or the driver cannot say).
func (k *conn) jobFailure(ctx context.Context) string {
	q, ok := k.base.(driver.QueryerContext)
	if !ok {
		return ""
	}
	rows, err := q.QueryContext(ctx, jobErrorQuery, nil)
	if err != nil {
		return ""
	}
	defer rows.Close()
	dest := make([]driver.Value, len(rows.Columns()))
	if rows.Next(dest) != nil || len(dest) == 0 {
		return ""
	}
	switch v := dest[0].(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

func (k *conn) simple(ctx context.Context, q string) error {
	if e, ok := k.base.(driver.ExecerContext); ok {
		_, err := e.ExecContext(ctx, q, nil)
		return err
	}
	s, err := k.base.Prepare(q)
	if err != nil {
		return err
	}
	defer s.Close()
	_, err = s.Exec(nil) //nolint:staticcheck // a driver without ExecerContext has nothing newer
	return err
}

func (k *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := k.base.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	return k.exec(ctx, query, func(text string) (driver.Result, error) {
		if text == noWaitForJobs {
			args = nil // the job's id is not needed to wait for nothing
		}
		return e.ExecContext(ctx, text, args)
	})
}

func (k *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := k.base.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	v := k.c.check(query)
	if v.asyncDDL != "" && !waitForJob.MatchString(query) {
		// DSQL answers CREATE INDEX ASYNC and ALTER TABLE ASYNC with their
		// job's id.
		if _, err := k.exec(ctx, query, func(text string) (driver.Result, error) {
			if e, ok := k.base.(driver.ExecerContext); ok {
				return e.ExecContext(ctx, text, args)
			}
			return nil, driver.ErrSkip
		}); err != nil {
			return nil, err
		}
		id, _ := jobOf(query) // (exec recorded an ALTER TABLE ASYNC's job)
		if id == "" {
			id = hashID(query) // several statements
		}
		return &oneRow{col: "job_id", val: id}, nil
	}
	if e := k.c.before(&k.st, v, query, k.c.reject); e != nil {
		return nil, k.refuse(ctx, e)
	}
	var rows driver.Rows
	var err error
	if v.asyncDDL != "" {
		rows, err = q.QueryContext(ctx, v.asyncDDL, nil) // CALL sys.wait_for_job(...): done at once
	} else {
		rows, err = q.QueryContext(ctx, k.c.pgText(v, query), args)
	}
	if err == nil {
		k.sqlControl(v)
	}
	return k.counted(ctx, v, query, rows), err
}

func (k *conn) CheckNamedValue(nv *driver.NamedValue) error {
	if c, ok := k.base.(driver.NamedValueChecker); ok {
		return c.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

func (k *conn) ResetSession(ctx context.Context) error {
	k.st.end()
	if r, ok := k.base.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (k *conn) IsValid() bool {
	if v, ok := k.base.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (k *conn) Ping(ctx context.Context) error {
	if p, ok := k.base.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

type tx struct {
	k    *conn
	base driver.Tx
}

func (t *tx) Commit() error {
	if t.k.st.aborted == nil {
		if e := t.k.c.ending(&t.k.st, "COMMIT", t.k.c.reject); e != nil {
			t.k.st.end()
			_ = t.base.Rollback()
			return e
		}
	}
	// An aborted transaction is aborted on the server too: its COMMIT
	// rolls back, and the driver says so as it would on DSQL.
	t.k.st.end()
	return t.base.Commit()
}

func (t *tx) Rollback() error {
	t.k.st.end()
	return t.base.Rollback()
}

// stmt checks a prepared statement each time it runs.
type stmt struct {
	k    *conn
	base driver.Stmt
	v    *verdict
	sql  string
}

func (s *stmt) Close() error { return s.base.Close() }
func (s *stmt) NumInput() int {
	if s.v.asyncDDL == noWaitForJobs {
		return -1 // sys.wait_for_job's argument, which the translation drops
	}
	return s.base.NumInput()
}

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.k.exec(ctx, s.sql, func(string) (driver.Result, error) {
		if s.v.asyncDDL == noWaitForJobs {
			args = nil
		}
		if e, ok := s.base.(driver.StmtExecContext); ok {
			return e.ExecContext(ctx, args)
		}
		return s.base.Exec(values(args)) //nolint:staticcheck // the driver offers nothing newer
	})
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if e := s.k.c.before(&s.k.st, s.v, s.sql, s.k.c.reject); e != nil {
		return nil, s.k.refuse(ctx, e)
	}
	var rows driver.Rows
	var err error
	if q, ok := s.base.(driver.StmtQueryContext); ok {
		rows, err = q.QueryContext(ctx, args)
	} else {
		rows, err = s.base.Query(values(args)) //nolint:staticcheck // the driver offers nothing newer
	}
	if err == nil {
		s.k.sqlControl(s.v)
	}
	return s.k.counted(ctx, s.v, s.sql, rows), err
}

func (s *stmt) CheckNamedValue(nv *driver.NamedValue) error {
	if c, ok := s.base.(driver.NamedValueChecker); ok {
		return c.CheckNamedValue(nv)
	}
	return s.k.CheckNamedValue(nv)
}

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}

func values(args []driver.NamedValue) []driver.Value {
	out := make([]driver.Value, len(args))
	for i, a := range args {
		out[i] = a.Value
	}
	return out
}

// oneRow is the one-row, one-column answer of a translated statement.
type oneRow struct {
	col, val string
	done     bool
}

func (r *oneRow) Columns() []string { return []string{r.col} }
func (r *oneRow) Close() error      { return nil }
func (r *oneRow) Next(dest []driver.Value) error {
	if r.done {
		return io.EOF
	}
	r.done = true
	dest[0] = r.val
	return nil
}
