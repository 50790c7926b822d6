package pgtest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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
	if n := len(s.dir + "/.s.PGSQL.5432"); n > 100 {
		t.Errorf("socket path is %d bytes, too long for a Unix socket", n)
	}

	ctx := context.Background()
	dsn, err := s.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
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
