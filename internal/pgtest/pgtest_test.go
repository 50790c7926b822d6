package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestDebianBinDirsHighestVersionFirst(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"9.6", "15", "16", "9.4", "common", "10"} {
		if err := os.MkdirAll(filepath.Join(root, v, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, d := range debianBinDirs(root) {
		rel, _ := filepath.Rel(root, d)
		got = append(got, rel)
	}
	want := []string{"16/bin", "15/bin", "10/bin", "9.6/bin", "9.4/bin"}
	if !slices.Equal(got, want) {
		t.Errorf("debianBinDirs = %v, want %v", got, want)
	}
}

// TestServerLifecycle starts a second server, uses it, and checks that Stop
// leaves neither a process nor a directory behind.
func TestServerLifecycle(t *testing.T) {
	if optedOut() {
		t.Skip("SKIPPED: this test needs PostgreSQL and " + OptOutEnv + "=1 is set")
	}
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			s.Stop()
		}
	})
	if v := s.admin.ParameterStatus("server_version"); os.Getenv(BinDirEnv) == "" && !strings.HasPrefix(v, "16.") {
		t.Errorf("server %s, want PostgreSQL 16 (%s)", v, s.Source())
	}
	if n := len(s.dir + "/.s.PGSQL.5432"); n > 100 {
		t.Errorf("socket path is %d bytes, too long for a Unix socket", n)
	}

	ctx := context.Background()
	dsn, conn := connectNew(t, s)
	res := conn.ExecParams(ctx, "SHOW default_transaction_isolation", nil, nil, nil, nil).Read()
	conn.Close(ctx)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := string(res.Rows[0][0]); got != "repeatable read" {
		t.Errorf("default_transaction_isolation = %q, want repeatable read", got)
	}

	stopped = true
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
		t.Errorf("server directory still there after Stop: %v", err)
	}
	if _, err := pgconn.Connect(ctx, dsn); err == nil {
		t.Error("server still accepting connections after Stop")
	}
}

// TestServerAsNobody: as root on a machine with no postgres user, the
// server runs as nobody, from a cache nobody can read.
func TestServerAsNobody(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPED: only root runs the server as another user; as another user, TestServerLifecycle covers the same path")
	}
	users := serverUsers
	serverUsers = []string{"nobody"}
	defer func() { serverUsers = users }()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(s.cred.Uid) != nobody.Uid {
		t.Errorf("server runs as uid %d, want nobody (%s)", s.cred.Uid, nobody.Uid)
	}
	if _, err := s.CreateDatabase(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestServerRestart: a restart keeps the data and the socket; sessions
// open across it end with an error, new ones work.
func TestServerRestart(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	ctx := context.Background()
	dsn, conn := connectNew(t, s)
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (id int); INSERT INTO kept VALUES (1)").ReadAll(); err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SELECT 1").ReadAll(); err == nil {
		t.Error("a session open across the restart still works")
	}
	conn.Close(ctx)
	conn, err = pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	res, err := conn.Exec(ctx, "SELECT count(*) FROM kept").ReadAll()
	if err != nil || string(res[0].Rows[0][0]) != "1" {
		t.Errorf("after the restart: %v %v", res, err)
	}
	if _, err := s.CreateDatabase(ctx); err != nil {
		t.Errorf("CreateDatabase after the restart: %v", err)
	}
}

// connectNew makes a database on s and connects to it.
func connectNew(t *testing.T, s *Server) (string, *pgconn.PgConn) {
	t.Helper()
	ctx := context.Background()
	dsn, err := s.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	return dsn, conn
}
