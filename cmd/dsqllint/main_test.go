package main_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/dsqllint/dsqllint/rules"
)

var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dsqllint-cli")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "dsqllint")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		panic("building dsqllint: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run executes a command in dir and returns its combined output and exit code.
func run(t *testing.T, dir string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if strings.Contains(filepath.ToSlash(dir), "/testdata/") {
		// A test module of its own, outside the repository's go.work.
		cmd.Env = append(os.Environ(), "GOWORK=off")
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode()
	}
	t.Fatalf("%s %v: %v", name, args, err)
	return "", -1
}

// module writes a throwaway Go module with one file.
func module(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"go.mod": "module example.com/m\n\ngo 1.25\n", "m.go": src}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const shareLockSrc = `package m

const q = "SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE"

const k = "SELECT range_id FROM shards WHERE shard_id = $1 FOR KEY SHARE"
`

func TestBundledExample(t *testing.T) {
	out, code := run(t, "../..", bin, "./examples/...")
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s", code, out)
	}
	for _, want := range []string{
		"examples/shardstore/store.go:17:42: DSQL001 share-lock: FOR SHARE",
		// The lock DSQL001's fix makes a FOR UPDATE needs its retry too.
		"examples/shardstore/store.go:17:42: DSQL005 lock-without-retry: this statement locks FOR SHARE (FOR UPDATE once the share-lock fix applies) outside any transaction",
		"examples/shardstore/store.go:21:71: DSQL002 mysql-share-lock:",
		"examples/shardstore/store.go:24:62: DSQL003 unfenced-write: range_id is compare-and-set: examples/shardstore/store.go:27 compare-and-sets range_id; this UPDATE changes range_id by the row's key without comparing it, so a stale writer overwrites the winner: add `AND range_id = $2`",
		"examples/shardstore/queries/leases.sql:15:1: DSQL003 unfenced-write: leases's rows are claimed: examples/shardstore/queries/leases.sql:5 claims the row (sets worker_id where it is NULL); this UPDATE changes worker_id, expires_at without checking the claim",
		"examples/shardstore/queries/leases.sql:24:1: DSQL001 share-lock: FOR SHARE",
		"examples/shardstore/tx.go:14:46: DSQL009 isolation-level:",
		// DSQL005 at the lock clause, wherever the text is run.
		"examples/shardstore/store.go:18:42: DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at tx.go:14, and nothing in this module retries on SQLSTATE 40001",
		"examples/shardstore/tx.go:25:15: DSQL004 unchecked-cas:",
		"examples/shardstore/tx.go:33:33: DSQL010 savepoint:",
		// The module stage: a lock in one package, the Begin in another.
		"examples/shardstore/tx.go:42:86: DSQL005 lock-without-retry: SELECT ... FOR UPDATE runs in the transaction begun at leasing.go:19",
		"examples/shardstore/leasing/leasing.go:19:13: \tthe transaction begins here, outside any 40001 retry",
		"examples/shardstore/leasing/leasing.go:24:16: \tand is passed to shardstore.LockLease",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, ": DSQL"); n != 13 {
		t.Errorf("%d findings, want 13:\n%s", n, out)
	}
}

func TestExitCodes(t *testing.T) {
	clean := module(t, "package m\n\nconst q = \"SELECT range_id FROM shards WHERE shard_id = $1\"\n")
	if out, code := run(t, clean, bin, "./..."); code != 0 || out != "" {
		t.Errorf("clean module: exit %d, output %q", code, out)
	}
	dirty := module(t, shareLockSrc)
	if _, code := run(t, dirty, bin, "./..."); code != 3 {
		t.Errorf("findings: exit %d, want 3", code)
	}
	if out, code := run(t, dirty, bin, "./nonexistent/..."); code != 1 {
		t.Errorf("load error: exit %d, want 1\n%s", code, out)
	}
	if out, code := run(t, dirty, bin, "-disable=DSQL999", "./..."); code != 1 && code != 2 {
		t.Errorf("bad flag: exit %d\n%s", code, out)
	}
}

func TestFlags(t *testing.T) {
	dir := module(t, shareLockSrc)
	out, _ := run(t, dir, bin, "./...")
	if strings.Count(out, "DSQL001") != 1 {
		t.Errorf("default target reports FOR KEY SHARE or misses FOR SHARE:\n%s", out)
	}
	out, _ = run(t, dir, bin, "-dsql-version=2026-01", "./...")
	if strings.Count(out, "DSQL001") != 2 || !strings.Contains(out, "FOR KEY SHARE is not supported by Aurora DSQL before 2026-08-25") {
		t.Errorf("2026-01 target:\n%s", out)
	}
	if out, code := run(t, dir, bin, "-disable=DSQL001,DSQL005", "./..."); code != 0 {
		t.Errorf("-disable=DSQL001,DSQL005: exit %d\n%s", code, out)
	}
}

// TestDiagnosticFlags: -timing names the phases and the package analysed;
// the profiles are gzipped pprof files; the findings stay the same.
func TestDiagnosticFlags(t *testing.T) {
	dir := module(t, shareLockSrc)
	cpu, mem := filepath.Join(t.TempDir(), "cpu.pprof"), filepath.Join(t.TempDir(), "mem.pprof")
	out, code := run(t, dir, bin, "-timing", "-cpuprofile="+cpu, "-memprofile="+mem, "./...")
	if code != 3 || strings.Count(out, "DSQL001") != 1 {
		t.Errorf("exit %d, want 3 and the one finding:\n%s", code, out)
	}
	if !regexp.MustCompile(`dsqllint: load \S+, analysis \S+ \(\S+ over 1 package: dsqllint \S+, gosql \S+, txcheck \S+\)\ndsqllint: +\S+ example.com/m\n`).MatchString(out) {
		t.Errorf("-timing output:\n%s", out)
	}
	for _, f := range []string{cpu, mem} {
		b, err := os.ReadFile(f)
		if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s is not a gzipped profile (%d bytes, %v)", f, len(b), err)
		}
	}
	if out, code := run(t, dir, bin, "-cpuprofile="+filepath.Join(dir, "no", "such", "dir"), "./..."); code != 1 {
		t.Errorf("unwritable profile: exit %d, want 1\n%s", code, out)
	}
}

func TestJSON(t *testing.T) {
	dir := module(t, shareLockSrc)
	out, code := run(t, dir, bin, "-json", "./...")
	if code != 0 {
		t.Fatalf("-json exits %d (x/tools convention is 0)\n%s", code, out)
	}
	var tree map[string]map[string][]struct {
		Category, Posn, Message string
	}
	if err := json.Unmarshal([]byte(out), &tree); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	// FOR SHARE: rejected (DSQL001), and a lock that needs a retry once
	// fixed (DSQL005).
	diags := tree["example.com/m"]["dsqllint"]
	if len(diags) != 2 || diags[0].Category != "DSQL001" || diags[1].Category != "DSQL005" ||
		!strings.HasSuffix(diags[0].Posn, "m.go:3:60") || diags[1].Posn != diags[0].Posn {
		t.Errorf("JSON diagnostics: %+v", diags)
	}
}

// TestTextAndJSONAgree: the text output builds no fix edits (nobody
// reads them), the JSON output does; both report the same findings with
// the same messages, which say when -fix rewrites one. The module's go
// line is too old for the runtime, so DSQL004's message names its fix.
func TestTextAndJSONAgree(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../../examples/shardstore", dir)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/shardstore\n\ngo 1.21\n"), 0o644)
	text, _ := run(t, dir, bin, "./...")
	out, _ := run(t, dir, bin, "-json", "./...")
	var tree map[string]map[string][]struct {
		Posn, Message  string
		SuggestedFixes []json.RawMessage `json:"suggested_fixes"`
	}
	if err := json.Unmarshal([]byte(out), &tree); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	var fromJSON, fromText []string
	fixes := 0
	for _, byAnalyzer := range tree {
		for _, d := range byAnalyzer["dsqllint"] {
			rel, _ := filepath.Rel(dir, strings.TrimSuffix(d.Posn, ":"+lastTwo(d.Posn)))
			fromJSON = append(fromJSON, rel+":"+lastTwo(d.Posn)+": "+d.Message)
			fixes += len(d.SuggestedFixes)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, ": DSQL") {
			fromText = append(fromText, strings.TrimPrefix(line, "./"))
		}
	}
	slices.Sort(fromJSON)
	slices.Sort(fromText)
	if len(fromText) == 0 || fixes == 0 || !slices.Equal(fromText, fromJSON) {
		t.Errorf("text and JSON differ (%d fixes in JSON):\ntext:\n%s\njson:\n%s", fixes, strings.Join(fromText, "\n"), strings.Join(fromJSON, "\n"))
	}
	if !strings.Contains(text, "DSQL004") || !strings.Contains(text, "and -fix rewrites it") {
		t.Errorf("the example's findings lack a DSQL004 naming its fix:\n%s", text)
	}
}

// lastTwo returns "line:col" of a "file:line:col" position.
func lastTwo(posn string) string {
	parts := strings.Split(posn, ":")
	if len(parts) < 3 {
		return ""
	}
	return strings.Join(parts[len(parts)-2:], ":")
}

// TestBuildTags: a store built only with a tag (//go:build postgres) is
// checked with -tags, and left out, as go build leaves it, without.
func TestBuildTags(t *testing.T) {
	dir := module(t, "package m\n")
	os.WriteFile(filepath.Join(dir, "pg.go"), []byte("//go:build postgres\n\n"+shareLockSrc), 0o644)
	if out, code := run(t, dir, bin, "./..."); code != 0 || strings.Contains(out, "DSQL001") {
		t.Errorf("without -tags: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, bin, "-tags", "postgres", "./..."); code != 3 || !strings.Contains(out, "pg.go:5:60: DSQL001") {
		t.Errorf("-tags postgres: exit %d\n%s", code, out)
	}
	// -why on the file left out says so.
	if out, code := run(t, dir, bin, "-why", "pg.go:5", "./..."); code != 1 || !strings.Contains(out, "pg.go is in none of the packages ./... as loaded (a build constraint may leave it out: -tags)") {
		t.Errorf("-why on a file left out: exit %d\n%s", code, out)
	}
}

func TestSQLFiles(t *testing.T) {
	out, code := run(t, "../..", bin, "examples/shardstore/queries")
	if code != 3 || !strings.Contains(out, "examples/shardstore/queries/leases.sql:15:1: DSQL003") {
		t.Errorf("directory of .sql files: exit %d\n%s", code, out)
	}
	out, code = run(t, "../..", bin, "-json", "examples/shardstore/queries/leases.sql")
	if code != 0 || !strings.Contains(out, `"category": "DSQL003"`) || !strings.Contains(out, `"posn": "examples/shardstore/queries/leases.sql:15:1"`) {
		t.Errorf("-json on a .sql file: exit %d\n%s", code, out)
	}
	clean := t.TempDir()
	os.WriteFile(filepath.Join(clean, "ok.sql"), []byte("SELECT 1 FROM t WHERE id = $1 FOR UPDATE;\n"), 0o644)
	if out, code := run(t, clean, bin, "ok.sql"); code != 0 {
		t.Errorf("clean .sql: exit %d\n%s", code, out)
	}
	if out, code := run(t, clean, bin, "missing.sql"); code != 1 {
		t.Errorf("missing .sql: exit %d\n%s", code, out)
	}
}

// TestSQLOutsideModule: .sql files in no module (a repository's
// make/migrations/postgresql beside its Go module in src/) have their
// schema read from their own directory: an INSERT ... SELECT pinned by a
// unique key copies one row, one that is not pinned is reported.
func TestSQLOutsideModule(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "migrations")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "0001_schema.up.sql"), []byte("CREATE TABLE project (project_id bigint PRIMARY KEY, name text NOT NULL, deleted boolean, UNIQUE (name));\nCREATE TABLE quota (id uuid PRIMARY KEY, ref text);\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "0002_quota.up.sql"), []byte("INSERT INTO quota (id, ref) SELECT gen_random_uuid(), name FROM project WHERE name = 'library';\n"+
		"INSERT INTO quota (id, ref) SELECT gen_random_uuid(), name FROM project WHERE deleted = false;\n"), 0o644)
	out, _ := run(t, filepath.Dir(dir), bin, "migrations")
	if strings.Contains(out, "0002_quota.up.sql:1:1: DSQL109") || !strings.Contains(out, "0002_quota.up.sql:2:1: DSQL109") {
		t.Errorf("want DSQL109 on the unpinned copy only:\n%s", out)
	}
}

// TestVetTool runs dsqllint through the real go command.
func TestVetTool(t *testing.T) {
	dir := module(t, shareLockSrc)
	out, code := run(t, dir, "go", "vet", "-vettool="+bin, "./...")
	if code == 0 || !strings.Contains(out, "m.go:3:60: DSQL001 share-lock") {
		t.Errorf("go vet -vettool: exit %d\n%s", code, out)
	}
	out, code = run(t, dir, "go", "vet", "-vettool="+bin, "-dsql-version=2026-01", "./...")
	if code == 0 || strings.Count(out, "DSQL001") != 2 {
		t.Errorf("go vet -vettool with an analyzer flag: exit %d\n%s", code, out)
	}
}

// copyTree copies the files under src into dst. A copy of the bundled
// example is a module of its own: its packages import each other by it.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		data = bytes.ReplaceAll(data, []byte(`"github.com/dsqllint/dsqllint/examples/shardstore"`), []byte(`"example.com/shardstore"`))
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// runtimeGoMod is the go.mod of a module that requires the retry runtime
// of this checkout (root), at the runtime's own go line.
func runtimeGoMod(module, root string) string {
	return "module " + module + "\n\ngo 1.22\n\nrequire github.com/dsqllint/dsqllint/runtime v0.0.0\n\nreplace github.com/dsqllint/dsqllint/runtime => " + filepath.Join(root, "runtime") + "\n"
}

// snapshot reads every file under dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(path)
			files[path] = string(data)
		}
		return nil
	})
	return files
}

// TestFixExample fixes a copy of the bundled example, rebuilds it, and
// checks that no fixable finding is left and a second -fix changes nothing.
func TestFixExample(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../../examples/shardstore", dir)
	root, _ := filepath.Abs("../..")
	// The fixes import dsqllint's runtime: use this checkout of it, with
	// the lowest go line it allows.
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte(runtimeGoMod("example.com/shardstore", root)), 0o644)
	before := snapshot(t, dir)

	out, code := run(t, dir, bin, "-fix", "-diff", "./...")
	if code != 0 || !strings.Contains(out, "+	readLockShardQuery  = lockShardBase + \" FOR UPDATE\"") || !strings.Contains(out, "+FOR UPDATE;") {
		t.Fatalf("-fix -diff: exit %d\n%s", code, out)
	}
	if after := snapshot(t, dir); !equalMaps(before, after) {
		t.Fatal("-fix -diff wrote files")
	}

	if out, code := run(t, dir, bin, "-fix", "./..."); code != 0 {
		t.Fatalf("-fix: exit %d\n%s", code, out)
	}
	if out, code := run(t, dir, "go", "build", "-mod=mod", "./..."); code != 0 {
		t.Fatalf("fixed code does not build:\n%s", out)
	}
	if out, _ := run(t, dir, "gofmt", "-l", "."); out != "" {
		t.Errorf("gofmt -l after -fix:\n%s", out)
	}
	// The runtime's import goes where goimports puts it: a group of its
	// own after the standard library.
	if tx, _ := os.ReadFile(filepath.Join(dir, "tx.go")); !strings.Contains(string(tx), "\t\"database/sql\"\n\n\t\"github.com/dsqllint/dsqllint/runtime/occ\"\n)") {
		t.Errorf("tx.go's imports after -fix:\n%s", tx)
	}
	out, _ = run(t, dir, bin, "-json", "./...")
	if strings.Contains(out, "suggested_fixes") || strings.Contains(out, "DSQL001") || strings.Contains(out, "DSQL002") || strings.Contains(out, "DSQL004") || strings.Contains(out, "DSQL009") {
		t.Errorf("fixable findings left after -fix:\n%s", out)
	}
	fixed := snapshot(t, dir)
	if equalMaps(before, fixed) {
		t.Fatal("-fix changed nothing")
	}
	if out, code := run(t, dir, bin, "-fix", "./..."); code != 0 || !equalMaps(fixed, snapshot(t, dir)) {
		t.Errorf("a second -fix changed files (exit %d)\n%s", code, out)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestFixSQLFile checks -fix on a plain .sql file against its golden file.
func TestFixSQLFile(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "testdata/fix", dir)
	if out, code := run(t, dir, bin, "-fix", "queries.sql"); code != 0 {
		t.Fatalf("-fix: exit %d\n%s", code, out)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "queries.sql"))
	want, _ := os.ReadFile(filepath.Join(dir, "queries.sql.golden"))
	if string(got) != string(want) {
		t.Errorf("fixed queries.sql:\n%s\nwant:\n%s", got, want)
	}
	// Only what has no fix is left: SKIP LOCKED (DSQL006), kept by the fix.
	out, code := run(t, dir, bin, "queries.sql")
	if code != 3 || strings.Count(out, ": DSQL") != 1 || !strings.Contains(out, "queries.sql:13:46:") || !strings.Contains(out, "DSQL006 lock-wait-policy") {
		t.Errorf("after -fix: exit %d\n%s", code, out)
	}
}

// TestFixTemplatedSQLFile checks -fix on a migration written as a Go
// text/template: the fixes land around the actions, and a fix that would
// rewrite one (TRUNCATE's, across an {{ if }}) is not applied.
func TestFixTemplatedSQLFile(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "testdata/fixtemplate", dir)
	if out, code := run(t, dir, bin, "-fix", "migration.sql"); code != 0 {
		t.Fatalf("-fix: exit %d\n%s", code, out)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "migration.sql"))
	want, _ := os.ReadFile(filepath.Join(dir, "migration.sql.golden"))
	if string(got) != string(want) {
		t.Errorf("fixed migration.sql:\n%s\nwant:\n%s", got, want)
	}
	out, code := run(t, dir, bin, "migration.sql")
	if code != 3 || strings.Count(out, ": DSQL") != 1 || !strings.Contains(out, "migration.sql:9:1: DSQL105 unsupported-statement: TRUNCATE") {
		t.Errorf("after -fix: exit %d\n%s", code, out)
	}
}

// TestGoFixAndVetFix applies fixes through the go command.
func TestGoFixAndVetFix(t *testing.T) {
	for _, args := range [][]string{
		{"fix", "-fixtool=" + bin, "./..."},
		{"vet", "-vettool=" + bin, "-fix", "./..."},
	} {
		dir := module(t, shareLockSrc)
		out, code := run(t, dir, "go", args...)
		got, _ := os.ReadFile(filepath.Join(dir, "m.go"))
		if code != 0 || !strings.Contains(string(got), "shard_id = $1 FOR UPDATE\"") {
			t.Errorf("go %s: exit %d\n%s\n%s", args[0], code, out, got)
		}
	}
}

// TestModuleStageOutputs: the module stage's related locations reach the
// JSON and SARIF outputs.
func TestModuleStageOutputs(t *testing.T) {
	for format, want := range map[string]string{
		"sarif": `"relatedLocations": [`,
		"json":  `"related": [`,
	} {
		out, _ := run(t, "../..", bin, "-format="+format, "./examples/...")
		if !strings.Contains(out, want) || !strings.Contains(out, "the transaction begins here, outside any 40001 retry") {
			t.Errorf("-format=%s lacks the related locations:\n%s", format, out)
		}
	}
}

// TestVersion: -version names the build and how new the rules' knowledge
// of DSQL is.
func TestVersion(t *testing.T) {
	out, code := run(t, t.TempDir(), bin, "-version")
	if code != 0 || !strings.HasPrefix(out, "dsqllint ") || !strings.Contains(out, "DSQL features through 2026-09-15") || strings.Contains(out, "\n\n") {
		t.Errorf("exit %d, output %q", code, out)
	}
}

// TestPaths: findings name files as go vet does, relative to the working
// directory: "./m.go" in it, "sub/s.go" below it, "../m.go" above it.
func TestPaths(t *testing.T) {
	dir := module(t, "package m\n\nconst q = \"SELECT * FROM t FOR SHARE\"\n")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "s.go"), []byte("package sub\n\nconst q = \"SELECT * FROM t FOR SHARE\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := run(t, dir, bin, "./...")
	for _, want := range []string{"\n./m.go:3:", "\nsub/s.go:3:"} {
		if !strings.Contains("\n"+out, want) {
			t.Errorf("in the module: output lacks %q:\n%s", strings.TrimPrefix(want, "\n"), out)
		}
	}
	if strings.Contains(out, dir) {
		t.Errorf("absolute paths printed:\n%s", out)
	}
	out, _ = run(t, filepath.Join(dir, "sub"), bin, "../...")
	if !strings.Contains("\n"+out, "\n../m.go:3:") || !strings.Contains("\n"+out, "\n./s.go:3:") {
		t.Errorf("from sub: want ../m.go and ./s.go:\n%s", out)
	}
}

// TestFixRealisticModule runs -fix as a new user would, on a module that
// does not require dsqllint: several packages, an aligned const block,
// grouped imports, migrations and query files. The module still builds
// and vets, gofmt has nothing to say, the fix that would need dsqllint's
// runtime is not made (the finding says what to add), a second -fix
// changes nothing, and -diff showed exactly what -fix wrote.
func TestFixRealisticModule(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "testdata/fixmod", dir)
	before := snapshot(t, dir)
	var diffs strings.Builder
	for _, args := range [][]string{{"./..."}, {"db"}} {
		out, code := run(t, dir, bin, append([]string{"-fix", "-diff"}, args...)...)
		if code != 0 {
			t.Fatalf("-fix -diff %s: exit %d\n%s", args[0], code, out)
		}
		diffs.WriteString(out)
	}
	if !equalMaps(before, snapshot(t, dir)) {
		t.Fatal("-fix -diff wrote files")
	}
	for _, args := range [][]string{{"./..."}, {"db"}} {
		if out, code := run(t, dir, bin, append([]string{"-fix"}, args...)...); code != 0 {
			t.Fatalf("-fix %s: exit %d\n%s", args[0], code, out)
		}
	}
	after := snapshot(t, dir)

	// -diff equals the change: it is the unified diff of each changed
	// file from before -fix to after, file by file.
	var want strings.Builder
	for _, name := range []string{"jobs/jobs.go", "store/store.go", "db/migrations/001_init.sql", "db/queries/jobs.sql"} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		want.WriteString(udiff.Unified(name, name, before[path], after[path]))
	}
	if diffs.String() != want.String() {
		t.Errorf("-diff printed:\n%s\nbut -fix changed:\n%s", diffs.String(), want.String())
	}
	changed := 0
	for path, content := range after {
		if content != before[path] {
			changed++
		}
	}
	if changed != 4 {
		t.Errorf("-fix changed %d files, want 4 (jobs.go, store.go, the migration, the query file)", changed)
	}

	for _, cmd := range [][]string{{"go", "build", "./..."}, {"go", "vet", "./..."}} {
		if out, code := run(t, dir, cmd[0], cmd[1:]...); code != 0 {
			t.Errorf("%v after -fix: exit %d\n%s", cmd, code, out)
		}
	}
	if out, _ := run(t, dir, "gofmt", "-l", "."); out != "" {
		t.Errorf("gofmt -l after -fix:\n%s", out)
	}
	if !strings.Contains(after[filepath.Join(dir, "store", "store.go")], "purgeShards = \"DELETE FROM shards\"                                         // tests only") {
		t.Errorf("the const block was not realigned:\n%s", after[filepath.Join(dir, "store", "store.go")])
	}

	out, _ := run(t, dir, bin, "./...")
	if !strings.Contains(out, "store/store.go:41:12: DSQL004") || !strings.Contains(out, "`go get github.com/dsqllint/dsqllint/runtime/occ`, and -fix rewrites it") {
		t.Errorf("the CAS finding should stay, saying what to add:\n%s", out)
	}
	for _, args := range [][]string{{"./..."}, {"db"}} {
		run(t, dir, bin, append([]string{"-fix"}, args...)...)
	}
	if !equalMaps(after, snapshot(t, dir)) {
		t.Error("a second -fix changed files")
	}
}

// TestExplain: -explain prints every rule's page from the binary alone,
// and an unknown ID lists the rules.
func TestExplain(t *testing.T) {
	dir := t.TempDir() // nothing of the repository around
	for _, r := range rules.All() {
		out, code := run(t, dir, bin, "-explain", strings.ToLower(r.ID))
		want, err := os.ReadFile(filepath.Join("..", "..", "docs", "rules", r.ID+".md"))
		if err != nil {
			t.Fatal(err)
		}
		if code != 0 || out != string(want) {
			t.Errorf("-explain %s: exit %d, output is not docs/rules/%s.md:\n%s", r.ID, code, r.ID, out)
		}
	}
	out, code := run(t, dir, bin, "-explain", "DSQL999")
	if code != 1 || !strings.Contains(out, "DSQL001 share-lock") {
		t.Errorf("-explain DSQL999: exit %d\n%s", code, out)
	}
}

// TestFixRetryRewrite: DSQL005's rewrite and DSQL009's dropped isolation
// option touch the same Begin; one -fix applies both (in two rounds), the
// module builds and vets, and a second -fix changes nothing.
func TestFixRetryRewrite(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "testdata/retrymod", dir)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mod := runtimeGoMod("example.com/retrymod", root)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := run(t, dir, bin, "-fix", "./..."); code != 0 {
		t.Fatalf("-fix: exit %d\n%s", code, out)
	}
	after := snapshot(t, dir)
	fixed := after[filepath.Join(dir, "store", "store.go")]
	for _, want := range []string{"return occ.RunTxWithRetry(ctx, s.db, func(tx *sql.Tx) (int64, error) {", "// Lock the show, then take a seat.", "occ.WithTxOptions(&sql.TxOptions{})"} {
		if !strings.Contains(fixed, want) {
			t.Errorf("the fixed file lacks %q:\n%s", want, fixed)
		}
	}
	for _, gone := range []string{"LevelReadCommitted", "tx.Commit()", "tx.Rollback()"} {
		if strings.Contains(fixed, gone) {
			t.Errorf("the fixed file still has %q:\n%s", gone, fixed)
		}
	}
	for _, cmd := range [][]string{{"go", "build", "-mod=mod", "./..."}, {"go", "vet", "-mod=mod", "./..."}} {
		if out, code := run(t, dir, cmd[0], cmd[1:]...); code != 0 {
			t.Errorf("%v after -fix: exit %d\n%s", cmd, code, out)
		}
	}
	after = snapshot(t, dir) // (go build may tidy go.mod)
	if out, code := run(t, dir, bin, "-fix", "./..."); code != 0 {
		t.Fatalf("second -fix: exit %d\n%s", code, out)
	}
	if !equalMaps(after, snapshot(t, dir)) {
		t.Error("a second -fix changed files")
	}
}

// TestFixStopsWhenTheFixedCodeDoesNotLoad: a first round's fix imports
// dsqllint's runtime into a module whose go.mod then wants go mod tidy;
// the next round cannot load the packages, so -fix keeps what it did,
// says what to run, and exits as the first round did.
func TestFixStopsWhenTheFixedCodeDoesNotLoad(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../../examples/shardstore", dir)
	root, _ := filepath.Abs("../..")
	// go 1.21 is older than the runtime's go 1.22: once the runtime is
	// imported, the go command wants go.mod updated.
	mod := strings.Replace(runtimeGoMod("example.com/shardstore", root), "go 1.22", "go 1.21", 1)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644)
	before := snapshot(t, dir)
	out, code := run(t, dir, bin, "-fix", "./...")
	if code != 0 || !strings.Contains(out, "run go mod tidy, then dsqllint -fix again") {
		t.Fatalf("-fix: exit %d\n%s", code, out)
	}
	if equalMaps(before, snapshot(t, dir)) {
		t.Error("the first round's fixes were not kept")
	}
}

// TestFixAddsTheRuntime: a release of dsqllint (here v0.99.0, its modules
// served by a file proxy made from this checkout) fixing a module that
// does not require the runtime adds, with the import, the requirement on
// the runtime's module at its own version, and nothing else: the go line
// stays, the fixed module builds and vets. Its negative twin: a module at
// go 1.21, below the runtime's go 1.22, is not offered the fix (the
// finding says what to go get) and its go.mod is left alone.
func TestFixAddsTheRuntime(t *testing.T) {
	root, _ := filepath.Abs("../..")
	const version = "v0.99.0"
	proxy := t.TempDir()
	if out, code := run(t, root, "go", "run", "./release/modproxy", "-version", version, "-proxy", proxy); code != 0 {
		t.Fatalf("release/modproxy: %s", out)
	}
	released := filepath.Join(t.TempDir(), "dsqllint")
	if out, code := run(t, ".", "go", "build", "-ldflags", "-X main.version="+version, "-o", released, "."); code != 0 {
		t.Fatalf("building a release: %s", out)
	}
	cache, _ := run(t, ".", "go", "env", "GOMODCACHE")
	env := append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOSUMDB=off", "GOFLAGS=-modcacherw", "GOMODCACHE="+t.TempDir(),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(strings.TrimSpace(cache), "cache", "download")))
	in := func(dir string, name string, args ...string) (string, int) {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return string(out), exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}

	for _, goLine := range []string{"1.22", "1.21"} {
		dir := t.TempDir()
		copyTree(t, "../../examples/shardstore", dir)
		mod := "module example.com/shardstore\n\ngo " + goLine + "\n"
		os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644)
		if goLine == "1.22" {
			// -diff writes nothing, and says what -fix would add to go.mod.
			out, _ := in(dir, released, "-fix", "-diff", "./...")
			if gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod")); string(gomod) != mod || !strings.Contains(out, "-fix would also run go get github.com/dsqllint/dsqllint/runtime/occ@"+version) {
				t.Errorf("-fix -diff:\n%s\ngo.mod:\n%s", out, gomod)
			}
		}
		out, code := in(dir, released, "-fix", "./...")
		if code == 1 {
			t.Fatalf("go %s: -fix: exit %d\n%s", goLine, code, out)
		}
		gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
		tx, _ := os.ReadFile(filepath.Join(dir, "tx.go"))
		if goLine == "1.21" {
			if string(gomod) != mod || strings.Contains(string(tx), "runtime/occ") {
				t.Errorf("go 1.21: -fix imported the runtime or changed go.mod:\n%s\n%s", gomod, out)
			}
			if out, _ := in(dir, released, "./..."); !strings.Contains(out, "`go get github.com/dsqllint/dsqllint/runtime/occ`") {
				t.Errorf("go 1.21: the findings do not say what to go get:\n%s", out)
			}
			continue
		}
		want := mod + "\nrequire github.com/dsqllint/dsqllint/runtime " + version + "\n"
		if string(gomod) != want || !strings.Contains(string(tx), "\"github.com/dsqllint/dsqllint/runtime/occ\"") {
			t.Errorf("go.mod after -fix:\n%s\nwant:\n%s\n%s", gomod, want, out)
		}
		for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
			if out, code := in(dir, "go", args...); code != 0 {
				t.Errorf("go %s after -fix:\n%s", args[0], out)
			}
		}
	}
}
