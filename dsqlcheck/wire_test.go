package dsqlcheck_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/dsqllint/dsqllint/dsqlcheck"
)

// hooked returns a pgx config for a fresh database holding t(id, v) with
// rows 1..3, whose connections go through c.
func hooked(tb testing.TB, c *dsqlcheck.Checker) (*pgx.ConnConfig, string) {
	tb.Helper()
	db, dsn := open(tb, dsqlcheck.New())
	db.Close() // it made the tables
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	c.HookPGX(&cfg.Config)
	return cfg, dsn
}

// hookedConn is a pgx connection through c to a fresh database holding
// t(id, v) with rows 1..3; it is closed when the test ends.
func hookedConn(t *testing.T, c *dsqlcheck.Checker) *pgx.Conn {
	t.Helper()
	cfg, _ := hooked(t, c)
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// wantPgError fails unless err is a *pgconn.PgError with code and message.
func wantPgError(t *testing.T, err error, code, msg string) {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v (%T), want a *pgconn.PgError %s", err, err, code)
	}
	if pe.Code != code || pe.Message != msg {
		t.Fatalf("got %s %q, want %s %q", pe.Code, pe.Message, code, msg)
	}
}

const (
	forShareMsg = "locking clauses other than FOR UPDATE/FOR KEY SHARE are not supported"
	abortedMsg  = "current transaction is aborted, commands ignored until end of transaction block"
)

// TestWirePGXConn: a refusal reaches pgx as DSQL's error, in both
// protocols; a refusal in a transaction aborts it on the server, COMMIT
// rolls back, and the connection works after ROLLBACK.
func TestWirePGXConn(t *testing.T) {
	ctx := context.Background()
	c := dsqlcheck.New(dsqlcheck.WithReject())
	conn := hookedConn(t, c)

	// extended protocol (arguments), then simple (none)
	_, err := conn.Exec(ctx, "SELECT v FROM t WHERE id = $1 FOR SHARE", 1)
	wantPgError(t, err, "0A000", forShareMsg)
	_, err = conn.Exec(ctx, "SELECT v FROM t WHERE id = 1 FOR SHARE")
	wantPgError(t, err, "0A000", forShareMsg)
	var v int
	if err := conn.QueryRow(ctx, "SELECT v FROM t WHERE id = $1 FOR UPDATE", 1).Scan(&v); err != nil {
		t.Fatalf("FOR UPDATE, which DSQL runs: %v", err)
	}

	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO t (id) VALUES ($1)", 10); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, "TRUNCATE t")
	wantPgError(t, err, "0A000", "unsupported statement: Truncate")
	_, err = tx.Exec(ctx, "SELECT 1")
	wantPgError(t, err, "25P02", abortedMsg)
	if err := tx.Commit(ctx); !errors.Is(err, pgx.ErrTxCommitRollback) {
		t.Fatalf("COMMIT of the aborted transaction: %v, want pgx.ErrTxCommitRollback", err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM t WHERE id = 10").Scan(&n); err != nil || n != 0 {
		t.Fatalf("the row written before the refusal: %d rows (%v), want 0", n, err)
	}

	// SQL BEGIN and ROLLBACK, simple protocol throughout
	for _, q := range []string{"BEGIN", "INSERT INTO t (id) VALUES (11)"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	_, err = conn.Exec(ctx, "SAVEPOINT s1")
	wantPgError(t, err, "0A000", "unsupported transaction statement: SAVEPOINT")
	if conn.PgConn().TxStatus() != 'E' {
		t.Fatalf("transaction status %c after a refusal, want E", conn.PgConn().TxStatus())
	}
	if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 3 {
		t.Fatalf("after ROLLBACK: %d rows (%v), want 3", n, err)
	}
	if got := rules(c.Findings()); got != "DSQL001,DSQL001,DSQL105,DSQL010" {
		t.Errorf("findings %s", got)
	}
}

// TestWireNoReject: without WithReject the statements run and are
// reported.
func TestWireNoReject(t *testing.T) {
	ctx := context.Background()
	c := dsqlcheck.New()
	conn := hookedConn(t, c)
	if _, err := conn.Exec(ctx, "SELECT v FROM t WHERE id = $1 FOR SHARE", 1); err != nil {
		t.Fatal(err)
	}
	if got := rules(c.Findings()); got != "DSQL001" {
		t.Errorf("findings %q, want DSQL001", got)
	}
}

// TestWirePool: pgxpool in reject mode, with transactions and a batch.
func TestWirePool(t *testing.T) {
	ctx := context.Background()
	c := dsqlcheck.New(dsqlcheck.WithReject())
	_, dsn := hooked(t, c)
	pcfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	c.HookPGX(&pcfg.ConnConfig.Config)
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	_, err = pool.Exec(ctx, "LISTEN jobs")
	wantPgError(t, err, "0A000", "unsupported statement: Listen")

	// COPY streams through the checker.
	n, err := pool.CopyFrom(ctx, pgx.Identifier{"big"}, []string{"id"}, pgx.CopyFromRows([][]any{{1}, {2}, {3}}))
	if err != nil || n != 3 {
		t.Fatalf("COPY FROM: %d rows, %v", n, err)
	}

	// A batch is one pipeline: the refusal in its middle ends it, and the
	// statements before it are rolled back with its implicit transaction.
	b := &pgx.Batch{}
	b.Queue("INSERT INTO t (id) VALUES ($1)", 20)
	b.Queue("SELECT v FROM t WHERE id = $1 FOR SHARE", 1)
	b.Queue("INSERT INTO t (id) VALUES ($1)", 21)
	err = pool.SendBatch(ctx, b).Close()
	wantPgError(t, err, "0A000", forShareMsg)
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM t WHERE id IN (20, 21)").Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows of the refused batch: %d (%v), want 0", n, err)
	}

	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE t SET v = v + 1 WHERE id = $1", 1); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", 7)
		return err
	})
	wantPgError(t, err, "0A000", "function pg_advisory_xact_lock not supported")
	var v int
	if err := pool.QueryRow(ctx, "SELECT v FROM t WHERE id = 1").Scan(&v); err != nil || v != 0 {
		t.Fatalf("v = %d (%v) after the rolled back transaction, want 0", v, err)
	}
}

// TestWireStdlib: pgx's database/sql driver through the hook.
func TestWireStdlib(t *testing.T) {
	ctx := context.Background()
	c := dsqlcheck.New(dsqlcheck.WithReject())
	cfg, _ := hooked(t, c)
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	_, err := db.ExecContext(ctx, "SELECT v FROM t WHERE id = $1 FOR SHARE", 1)
	wantPgError(t, err, "0A000", forShareMsg)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "CREATE TABLE d1 (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	_, err = tx.ExecContext(ctx, "INSERT INTO t (id) VALUES ($1)", 30)
	wantPgError(t, err, "0A000", "ddl and dml are not supported in the same transaction")
	if err := tx.Commit(); err == nil || !strings.Contains(err.Error(), "rollback") {
		t.Fatalf("COMMIT after the refusal: %v, want a rollback", err)
	}
	var exists bool
	if err := db.QueryRowContext(ctx, "SELECT to_regclass('d1') IS NOT NULL").Scan(&exists); err != nil || exists {
		t.Fatalf("d1 exists: %v (%v), want it rolled back", exists, err)
	}
}

// TestWireDSQLStatements: DSQL's own statements run on PostgreSQL through
// the hook: CREATE INDEX ASYNC answers a job id, which sys.jobs lists as
// completed; sys.wait_for_job returns at once; dropping a key column is
// refused by the server's catalog.
func TestWireDSQLStatements(t *testing.T) {
	ctx := context.Background()
	c := dsqlcheck.New(dsqlcheck.WithReject())
	conn := hookedConn(t, c)
	var job string
	if err := conn.QueryRow(ctx, "CREATE INDEX ASYNC t_v ON t (v)").Scan(&job); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(job) {
		t.Fatalf("job id %q, want a UUID as DSQL's are", job)
	}
	var status, object string
	if err := conn.QueryRow(ctx, "SELECT status, object_name FROM sys.jobs WHERE job_id = $1", job).Scan(&status, &object); err != nil {
		t.Fatal(err)
	}
	if status != "completed" || object != "public.t_v" {
		t.Fatalf("sys.jobs: %s %s", status, object)
	}
	var done bool
	if err := conn.QueryRow(ctx, "CALL sys.wait_for_job($1)", job).Scan(&done); err != nil || !done {
		t.Fatalf("sys.wait_for_job: %v %v", done, err)
	}
	// simple protocol: the job row too
	rows, err := conn.Query(ctx, "CREATE INDEX ASYNC t_v2 ON t (v)", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if rows.Err() != nil || len(ids) != 1 || rows.CommandTag().String() != "CREATE INDEX" {
		t.Fatalf("simple CREATE INDEX ASYNC: %v %v %q", ids, rows.Err(), rows.CommandTag())
	}
	if _, err := conn.Exec(ctx, "SELECT count(*) FROM sys.jobs j WHERE j.status = 'completed'"); err != nil {
		t.Fatalf("sys.jobs with an alias: %v", err)
	}

	_, err = conn.Exec(ctx, "ALTER TABLE t DROP COLUMN id")
	wantPgError(t, err, "0A000", "cannot drop primary key column id")
	tag, err := conn.Exec(ctx, "ALTER TABLE t DROP COLUMN v")
	if err != nil || tag.String() != "ALTER TABLE" {
		t.Fatalf("DROP COLUMN v: %q %v", tag, err)
	}
}

// TestWireRowLimit: a statement modifying more than 3,000 rows fails as on
// DSQL, in and out of a transaction, and leaves nothing behind.
func TestWireRowLimit(t *testing.T) {
	ctx := context.Background()
	c := dsqlcheck.New(dsqlcheck.WithReject())
	conn := hookedConn(t, c)
	count := func() int {
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM big").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// simple protocol, autocommit
	_, err := conn.Exec(ctx, "INSERT INTO big SELECT g FROM generate_series(1, 3001) g")
	wantPgError(t, err, "54000", "transaction row limit exceeded")
	if n := count(); n != 0 {
		t.Fatalf("%d rows after the refused statement", n)
	}
	// extended protocol, autocommit
	_, err = conn.Exec(ctx, "INSERT INTO big SELECT g FROM generate_series(1, $1::int) g", 3001)
	wantPgError(t, err, "54000", "transaction row limit exceeded")
	if _, err := conn.Exec(ctx, "INSERT INTO big SELECT g FROM generate_series(1, $1::int) g", 3000); err != nil {
		t.Fatalf("3,000 rows: %v", err)
	}
	if n := count(); n != 3000 {
		t.Fatalf("%d rows, want 3000", n)
	}
	// in a transaction
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, "INSERT INTO big VALUES ($1)", 5000)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, "DELETE FROM big WHERE id <= $1", 3000)
	wantPgError(t, err, "54000", "transaction row limit exceeded")
	_, err = tx.Exec(ctx, "SELECT 1")
	wantPgError(t, err, "25P02", abortedMsg)
	_ = tx.Rollback(ctx)
	if n := count(); n != 3000 {
		t.Fatalf("%d rows after the refused transaction, want 3000", n)
	}
}

// TestProxyLoad: 32 clients × 500 statements through the proxy, accepted
// and refused, alone and in transactions. Every accepted write is there
// once, every refused one is absent, and when the proxy stops no session,
// server connection or goroutine is left.
func TestProxyLoad(t *testing.T) {
	const clients, statements = 32, 500
	ctx := context.Background()
	before := runtime.NumGoroutine()
	_, dsn := open(t, dsqlcheck.New())
	setup := adminConn(t, dsn, "CREATE TABLE load (worker int, seq int, PRIMARY KEY (worker, seq))")

	c := dsqlcheck.New(dsqlcheck.WithReject())
	proxy, err := c.NewProxy(dsn)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "dsqlcheck")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("unix", filepath.Join(dir, ".s.PGSQL.5433"))
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- proxy.Serve(ln) }()

	pcfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pcfg.ConnConfig.Host, pcfg.ConnConfig.Port = dir, 5433
	pcfg.MaxConns, pcfg.MinConns = clients, clients
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		t.Fatal(err)
	}

	// kind of statement i: 0 accepted insert, 1 refused insert (FOR SHARE
	// in its SELECT), 2 accepted insert in a transaction, 3 insert in a
	// transaction a refusal aborts.
	kind := func(i int) int { return []int{0, 0, 1, 0, 2, 3, 0}[i%7] }
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < statements; i++ {
				var err error
				switch kind(i) {
				case 0:
					_, err = pool.Exec(ctx, "INSERT INTO load VALUES ($1, $2)", w, i)
				case 1:
					_, err = pool.Exec(ctx, "INSERT INTO load SELECT $1::int, $2::int FROM t WHERE id = 1 FOR SHARE", w, i)
					if err == nil || !strings.Contains(err.Error(), "locking clauses") {
						err = fmt.Errorf("refused insert %d/%d: %v", w, i, err)
					} else {
						err = nil
					}
				case 2, 3:
					err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
						if _, err := tx.Exec(ctx, "INSERT INTO load VALUES ($1, $2)", w, i); err != nil {
							return err
						}
						if kind(i) == 3 {
							_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", w)
							return err
						}
						return nil
					})
					if kind(i) == 3 {
						if err == nil || !strings.Contains(err.Error(), "pg_advisory_xact_lock not supported") {
							err = fmt.Errorf("aborted transaction %d/%d: %v", w, i, err)
						} else {
							err = nil
						}
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	rows, err := setup.Query(ctx, "SELECT worker, seq FROM load")
	if err != nil {
		t.Fatal(err)
	}
	got := map[[2]int]int{}
	for rows.Next() {
		var k [2]int
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			t.Fatal(err)
		}
		got[k]++
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	want := 0
	for w := 0; w < clients; w++ {
		for i := 0; i < statements; i++ {
			accepted := kind(i) == 0 || kind(i) == 2
			if accepted {
				want++
			}
			if n := got[[2]int{w, i}]; (accepted && n != 1) || (!accepted && n != 0) {
				t.Fatalf("row %d/%d present %d times (kind %d)", w, i, n, kind(i))
			}
		}
	}
	if len(got) != want {
		t.Fatalf("%d rows, want %d", len(got), want)
	}

	pool.Close()
	if err := proxy.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if n := proxy.Sessions(); n != 0 {
		t.Fatalf("%d sessions after Close", n)
	}
	// The server and the runtime see the connections go: wait for them,
	// boundedly.
	var backends, goroutines int
	for i := 0; i < 500; i++ {
		if err := setup.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()").Scan(&backends); err != nil {
			t.Fatal(err)
		}
		goroutines = runtime.NumGoroutine()
		if backends == 0 && goroutines <= before+1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if backends != 0 {
		t.Errorf("%d server connections left", backends)
	}
	if goroutines > before+1 {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines, %d before the test:\n%s", goroutines, before, buf[:runtime.Stack(buf, true)])
	}
}

// BenchmarkRoundTrip is one statement's round trip on the PostgreSQL the
// tests start: directly, through the in-process hook, and through the
// proxy on a unix socket; extended protocol (an argument) and simple.
func BenchmarkRoundTrip(b *testing.B) {
	ctx := context.Background()
	_, dsn := open(b, dsqlcheck.New())
	direct, err := pgx.ParseConfig(dsn)
	if err != nil {
		b.Fatal(err)
	}
	hook := direct.Copy()
	dsqlcheck.New(dsqlcheck.WithReject()).HookPGX(&hook.Config)

	proxy, err := dsqlcheck.New(dsqlcheck.WithReject()).NewProxy(dsn)
	if err != nil {
		b.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "dsqlcheck")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("unix", filepath.Join(dir, ".s.PGSQL.5433"))
	if err != nil {
		b.Fatal(err)
	}
	go proxy.Serve(ln)
	defer proxy.Close()
	proxied := direct.Copy()
	proxied.Host, proxied.Port = dir, 5433

	for _, path := range []struct {
		name string
		cfg  *pgx.ConnConfig
	}{{"direct", direct}, {"hook", hook}, {"proxy", proxied}} {
		conn, err := pgx.ConnectConfig(ctx, path.cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("extended/"+path.name, func(b *testing.B) {
			var v int
			for b.Loop() {
				if err := conn.QueryRow(ctx, "SELECT v FROM t WHERE id = $1", 1).Scan(&v); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("simple/"+path.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := conn.Exec(ctx, "UPDATE t SET v = v + 1 WHERE id = 2"); err != nil {
					b.Fatal(err)
				}
			}
		})
		conn.Close(ctx)
	}
}
