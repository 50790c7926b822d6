package dsqlcheck

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5"
)

// Tracer returns a pgx tracer that checks every query and batch of the
// connections it is set on (pgx.ConnConfig.Tracer; for pgxpool,
// config.ConnConfig.Tracer). The value also implements pgx.BatchTracer.
// A tracer cannot stop a statement: it records findings, whatever
// WithReject says; fail the test with Verify.
func (c *Checker) Tracer() pgx.QueryTracer { return &tracer{c: c, conns: map[*pgx.Conn]*txState{}} }

type tracer struct {
	c     *Checker
	mu    sync.Mutex
	conns map[*pgx.Conn]*txState
	live  int // the map's size after the last sweep of closed connections
}

var (
	_ pgx.QueryTracer = (*tracer)(nil)
	_ pgx.BatchTracer = (*tracer)(nil)
)

type verdictKey struct{}

// state is a connection's transaction; a pgx.Conn is used by one
// goroutine at a time, so only the map needs the lock. pgx tells a tracer
// nothing of a connection's close: the state of closed connections is
// freed when a new connection's is made and the map has doubled since.
func (t *tracer) state(conn *pgx.Conn) *txState {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.conns[conn]
	if st == nil {
		if len(t.conns) >= 2*t.live {
			for c := range t.conns {
				if c.IsClosed() {
					delete(t.conns, c)
				}
			}
			t.live = max(len(t.conns), 8)
		}
		st = &txState{}
		t.conns[conn] = st
	}
	return st
}

func (t *tracer) TraceQueryStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	v := t.c.check(data.SQL)
	t.start(conn, v, data.SQL)
	t.keyColumns(ctx, conn, v, data.SQL)
	return context.WithValue(ctx, verdictKey{}, v)
}

func (t *tracer) TraceQueryEnd(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryEndData) {
	v, _ := ctx.Value(verdictKey{}).(*verdict)
	if v != nil && data.Err == nil {
		t.end(conn, v, data.CommandTag.RowsAffected(), data.CommandTag.String())
	}
}

func (t *tracer) TraceBatchStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (t *tracer) TraceBatchQuery(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchQueryData) {
	v := t.c.check(data.SQL)
	t.start(conn, v, data.SQL)
	if data.Err == nil {
		t.end(conn, v, data.CommandTag.RowsAffected(), data.CommandTag.String())
	}
}

func (t *tracer) TraceBatchEnd(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchEndData) {}

func (t *tracer) start(conn *pgx.Conn, v *verdict, sql string) {
	st := t.state(conn)
	t.c.before(st, v, sql, false) // a tracer observes: it never refuses
}

func (t *tracer) end(conn *pgx.Conn, v *verdict, rows int64, tag string) {
	st := t.state(conn)
	if v.dml {
		t.c.modified(st, rows, tag, false)
	}
	switch v.class {
	case classBegin:
		st.begin()
	case classEnd:
		if v.commit {
			t.c.ending(st, tag, false)
		}
		st.end()
	}
}

// keyColumns reports a DROP COLUMN of a primary-key column, asking the
// server, on the connection about to run it (idle until the query is
// sent, and in its transaction), whether the column is in the key.
func (t *tracer) keyColumns(ctx context.Context, conn *pgx.Conn, v *verdict, sql string) {
	if len(v.dropColumns) == 0 || !t.c.cfg.Enabled("DSQL108") {
		return
	}
	for _, ch := range v.dropColumns {
		table := qualifiedTable(ch)
		res := conn.PgConn().ExecParams(ctx, primaryKeyColumn, [][]byte{[]byte(table), []byte(ch.Name)}, nil, nil, nil).Read()
		if res.Err == nil && len(res.Rows) == 1 && string(res.Rows[0][0]) == "t" {
			t.c.record("DSQL108", dropKeyMessage(ch.Name, table), sql)
		}
	}
}
