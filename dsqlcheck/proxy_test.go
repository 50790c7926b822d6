package dsqlcheck_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dsqllint/dsqllint/dsqlcheck"
	"github.com/dsqllint/dsqllint/internal/pgtest"
)

// proxied is a proxy serving on a Unix socket in a short temporary
// directory, to the server at dsn.
type proxied struct {
	*dsqlcheck.Proxy
	dir    string
	served chan error
}

func serveProxy(t *testing.T, c *dsqlcheck.Checker, dsn string) *proxied {
	t.Helper()
	proxy, err := c.NewProxy(dsn)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "dsqlcheck")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ln, err := net.Listen("unix", filepath.Join(dir, ".s.PGSQL.5433"))
	if err != nil {
		t.Fatal(err)
	}
	p := &proxied{Proxy: proxy, dir: dir, served: make(chan error, 1)}
	go func() { p.served <- proxy.Serve(ln) }()
	return p
}

// through is dsn's connection string, to the proxy instead.
func (p *proxied) through(t *testing.T, dsn string) *pgx.ConnConfig {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Host, cfg.Port = p.dir, 5433
	cfg.ConnectTimeout = 10 * time.Second
	return cfg
}

// settle waits, boundedly, until the proxy serves no session, the server
// has no connection to dbname but admin's, and the goroutines are back to
// before; it reports what is left.
func settle(t *testing.T, p *proxied, admin *pgx.Conn, before int) {
	t.Helper()
	ctx := context.Background()
	var sessions, backends, goroutines int
	for i := 0; i < 1000; i++ {
		sessions = p.Sessions()
		if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()").Scan(&backends); err != nil {
			t.Fatal(err)
		}
		goroutines = runtime.NumGoroutine()
		if sessions == 0 && backends == 0 && goroutines <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	if sessions != 0 {
		t.Errorf("%d proxy sessions left", sessions)
	}
	if backends != 0 {
		t.Errorf("%d server connections left", backends)
	}
	if goroutines > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines, %d before:\n%s", goroutines, before, buf[:runtime.Stack(buf, true)])
	}
}

// TestProxyClientDisconnectsMidTransaction: a client that goes away inside
// a transaction leaves nothing committed, no session in the proxy and no
// connection on the server.
func TestProxyClientDisconnectsMidTransaction(t *testing.T) {
	ctx := context.Background()
	_, dsn := open(t, dsqlcheck.New())
	admin := adminConn(t, dsn, "CREATE TABLE gone (id int PRIMARY KEY)")
	before := runtime.NumGoroutine() + 1 // (the proxy's Serve)
	p := serveProxy(t, dsqlcheck.New(dsqlcheck.WithReject()), dsn)
	for i := 0; i < 20; i++ {
		conn, err := pgx.ConnectConfig(ctx, p.through(t, dsn))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "INSERT INTO gone VALUES ($1)", i); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			// Half of them mid-statement: a query sent, its answer unread.
			conn.PgConn().Conn().Write([]byte{'Q', 0, 0, 0, 13, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '1', 0})
		}
		conn.PgConn().Conn().Close() // no Terminate, no ROLLBACK: the socket goes
	}
	settle(t, p, admin, before)
	var n int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM gone").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d rows of abandoned transactions committed (%v)", n, err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-p.served; err != nil {
		t.Fatal(err)
	}
}

// TestProxyUpstreamRestart: the server restarts while clients write
// through the proxy. Every client hears an error for what was cut (no
// client hangs), every write whose COMMIT succeeded is there once, and
// when the clients go, no session or goroutine is left.
func TestProxyUpstreamRestart(t *testing.T) {
	ctx := context.Background()
	server, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Stop()
	dsn, err := server.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	adminConn(t, dsn, "CREATE TABLE restart (worker int, seq int, PRIMARY KEY (worker, seq))").Close(ctx)
	before := runtime.NumGoroutine() + 1
	p := serveProxy(t, dsqlcheck.New(dsqlcheck.WithReject()), dsn)

	const workers = 8
	var (
		committed sync.Map // [2]int → true
		done      atomic.Int32
		cut       atomic.Int32 // operations answered with an error
		stop      = make(chan struct{})
		wg        sync.WaitGroup
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var conn *pgx.Conn
			defer func() {
				if conn != nil {
					conn.Close(ctx)
				}
			}()
			for seq := 0; ; seq++ {
				select {
				case <-stop:
					return
				default:
				}
				if conn == nil {
					c, err := pgx.ConnectConfig(ctx, p.through(t, dsn))
					if err != nil {
						cut.Add(1)
						time.Sleep(20 * time.Millisecond) // the server is starting
						continue
					}
					conn = c
				}
				opCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
				err := pgx.BeginFunc(opCtx, conn, func(tx pgx.Tx) error {
					_, err := tx.Exec(opCtx, "INSERT INTO restart VALUES ($1, $2)", w, seq)
					return err
				})
				cancel()
				if errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("worker %d: no answer within 20 s", w)
					return
				}
				if err != nil {
					cut.Add(1)
					conn.Close(ctx)
					conn = nil
					continue
				}
				committed.Store([2]int{w, seq}, true)
				done.Add(1)
			}
		}(w)
	}
	wait := func(n int32) {
		for deadline := time.Now().Add(time.Minute); done.Load() < n; {
			if time.Now().After(deadline) {
				t.Fatalf("%d transactions committed, waited for %d", done.Load(), n)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	wait(200)
	if err := server.Restart(); err != nil {
		t.Fatal(err)
	}
	after := done.Load()
	wait(after + 200)
	close(stop)
	wg.Wait()
	if cut.Load() == 0 {
		t.Errorf("no client heard of the restart")
	}

	admin := adminConn(t, dsn)
	rows, err := admin.Query(ctx, "SELECT worker, seq FROM restart")
	if err != nil {
		t.Fatal(err)
	}
	got := map[[2]int]bool{}
	for rows.Next() {
		var k [2]int
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			t.Fatal(err)
		}
		got[k] = true
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	lost := 0
	committed.Range(func(k, _ any) bool {
		if !got[k.([2]int)] {
			lost++
		}
		return true
	})
	if lost > 0 {
		t.Errorf("%d committed rows lost across the restart", lost)
	}
	t.Logf("%d transactions committed through the proxy, %d answered with an error around the restart", done.Load(), cut.Load())
	settle(t, p, admin, before)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// idleClientsEnv makes the test binary, run again, a process of idle
// clients: it connects N clients to the proxy named, says so on stdout,
// and holds them until stdin closes. The proxy's memory is then measured
// in its own process alone.
const idleClientsEnv = "DSQLCHECK_TEST_IDLE_CLIENTS"

// adminConn is a connection straight to the server (no checker), closed
// when the test ends, that has run stmts.
func adminConn(t *testing.T, dsn string, stmts ...string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return conn
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(idleClientsEnv); spec != "" {
		os.Exit(idleClients(spec))
	}
	pgtest.Main(m)
}

func idleClients(spec string) int {
	n, dsn, _ := strings.Cut(spec, " ")
	count, _ := strconv.Atoi(n)
	ctx := context.Background()
	var conns []*pgconn.PgConn
	for i := 0; i < count; i++ {
		c, err := pgconn.Connect(ctx, dsn)
		if err != nil {
			fmt.Println("error:", err)
			return 1
		}
		conns = append(conns, c)
	}
	fmt.Println("connected")
	buf := make([]byte, 1)
	os.Stdin.Read(buf) // until the test closes it
	for _, c := range conns {
		c.Close(ctx)
	}
	return 0
}

// TestProxyIdleSessionsMemory: 1,000 idle clients through the proxy (in
// another process), each with its server connection. The proxy's memory
// (heap and goroutine stacks) per session stays under a bound.
func TestProxyIdleSessionsMemory(t *testing.T) {
	const clients = 1000
	const bound = 128 << 10 // bytes per idle session (26 KiB measured)
	ctx := context.Background()
	server, err := pgtest.Start("max_connections=1100", "shared_buffers=16MB")
	if err != nil {
		t.Fatal(err)
	}
	defer server.Stop()
	dsn, err := server.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := serveProxy(t, dsqlcheck.New(dsqlcheck.WithReject()), dsn)
	cfg := p.through(t, dsn)
	clientDSN := fmt.Sprintf("host=%s port=5433 user=%s dbname=%s sslmode=disable", p.dir, cfg.User, cfg.Database)

	inUse := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse + m.StackInuse
	}
	base := inUse()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), idleClientsEnv+"="+strconv.Itoa(clients)+" "+clientDSN)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 256)
	n, _ := stdout.Read(line)
	if string(line[:n]) != "connected\n" {
		stdin.Close()
		cmd.Wait()
		t.Fatalf("the clients' process: %q", line[:n])
	}
	if s := p.Sessions(); s != clients {
		t.Errorf("%d sessions, want %d", s, clients)
	}
	per := (inUse() - base) / clients
	t.Logf("%d idle sessions: %d KiB each in the proxy (heap and stacks)", clients, per>>10)
	if per > bound {
		t.Errorf("%d bytes per idle session, over the bound of %d", per, bound)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	for i := 0; p.Sessions() > 0 && i < 1000; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if s := p.Sessions(); s != 0 {
		t.Errorf("%d sessions after the clients left", s)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}
