package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// TestRuntimeModules serves the working tree's modules at a local version
// from a file proxy, as a release would, to a module at go 1.22 that uses
// pgx v5.4.3: go get of occ and occpgx adds those two modules and nothing
// else (its go line and pgx stay), the code builds, and go install of the
// linter at that version builds it. Only the first step, which fills the
// module cache with what the scratch module needs of pgx, uses the
// network; the rest runs from the two file proxies.
func TestRuntimeModules(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	const version = "v0.99.0"
	proxy := t.TempDir()
	if err := write(root, version, proxy, false); err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	writeFile(t, filepath.Join(scratch, "go.mod"), "module example.com/scratch\n\ngo 1.22\n\nrequire github.com/jackc/pgx/v5 v5.4.3\n")
	writeFile(t, filepath.Join(scratch, "main.go"), `package main

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dsqllint/dsqllint/runtime/occ"
	"github.com/dsqllint/dsqllint/runtime/occpgx"
)

func main() {
	ctx := context.Background()
	var db *sql.DB
	var pool *pgxpool.Pool
	if db == nil || pool == nil {
		return
	}
	_, _ = occ.RunTxWithRetry(ctx, db, func(tx *sql.Tx) (int, error) { return 0, nil })
	_, _ = occpgx.RunTxWithRetry(ctx, pool, func(tx pgx.Tx) (int, error) { return 0, nil })
}
`)
	// The scratch module as its users keep it: tidy, at pgx v5.4.3.
	online := append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
	noOurs := filepath.Join(scratch, "main.go")
	src, _ := os.ReadFile(noOurs)
	writeFile(t, noOurs, strings.NewReplacer(
		"\t\"github.com/dsqllint/dsqllint/runtime/occ\"\n\t\"github.com/dsqllint/dsqllint/runtime/occpgx\"\n", "",
		"\t_, _ = occ.RunTxWithRetry(ctx, db, func(tx *sql.Tx) (int, error) { return 0, nil })\n", "\t_ = db\n",
		"\t_, _ = occpgx.RunTxWithRetry(ctx, pool, func(tx pgx.Tx) (int, error) { return 0, nil })\n", "\t_ = pgx.TxOptions{}\n").Replace(string(src)))
	goIn(t, scratch, online, "mod", "tidy")
	writeFile(t, noOurs, string(src))
	before := readMod(t, scratch)

	cache := strings.TrimSpace(goIn(t, scratch, online, "env", "GOMODCACHE"))
	offline := append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod -modcacherw", "GOSUMDB=off",
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(cache, "cache", "download")),
		"GOMODCACHE="+t.TempDir())
	goIn(t, scratch, offline, "get", "github.com/dsqllint/dsqllint/runtime/occ@"+version, "github.com/dsqllint/dsqllint/runtime/occpgx@"+version)
	goIn(t, scratch, offline, "build", "./...")
	after := readMod(t, scratch)

	if after.Go.Version != before.Go.Version {
		t.Errorf("go line %s after go get, was %s", after.Go.Version, before.Go.Version)
	}
	was := map[string]string{}
	for _, r := range before.Require {
		was[r.Mod.Path] = r.Mod.Version
	}
	added := map[string]string{}
	for _, r := range after.Require {
		switch v, ok := was[r.Mod.Path]; {
		case !ok:
			added[r.Mod.Path] = r.Mod.Version
		case v != r.Mod.Version:
			t.Errorf("%s %s after go get, was %s", r.Mod.Path, r.Mod.Version, v)
		}
	}
	want := map[string]string{"github.com/dsqllint/dsqllint/runtime": version, "github.com/dsqllint/dsqllint/runtime/occpgx": version}
	if len(added) != len(want) || added["github.com/dsqllint/dsqllint/runtime"] != version || added["github.com/dsqllint/dsqllint/runtime/occpgx"] != version {
		t.Errorf("go get added %v, want %v", added, want)
	}

	// cgo-free and -trimpath, as the release builds it: the build cache
	// then serves what another directory compiled (libpg_query's C takes a
	// minute otherwise).
	bin := t.TempDir()
	goIn(t, scratch, append(offline, "GOBIN="+bin, "CGO_ENABLED=0"), "install", "-trimpath", "github.com/dsqllint/dsqllint/cmd/dsqllint@"+version)
	if out, err := exec.Command(filepath.Join(bin, "dsqllint"), "-version").CombinedOutput(); err != nil || !strings.Contains(string(out), version) {
		t.Errorf("dsqllint -version: %v\n%s", err, out)
	}
}

func goIn(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func readMod(t *testing.T, dir string) *modfile.File {
	t.Helper()
	name := filepath.Join(dir, "go.mod")
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func writeFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTagScript runs release/tag.sh in a clone: every module is tagged on
// one commit whose go.mod files require each other at the version, with
// their hashes in go.sum, and the branch keeps v0.0.0.
func TestTagScript(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	git := func(dir string, args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	git(root, "clone", "-q", root, clone)
	cmd := exec.Command("release/tag.sh", "v0.99.0")
	cmd.Dir = clone
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release/tag.sh: %v\n%s", err, out)
	}
	for _, tag := range []string{"v0.99.0", "runtime/v0.99.0", "runtime/occpgx/v0.99.0", "runtime/occprom/v0.99.0", "internal/pgtest/v0.99.0"} {
		if got, want := git(clone, "rev-parse", tag+"^{commit}"), git(clone, "rev-parse", "v0.99.0^{commit}"); got != want {
			t.Errorf("%s is on %s, v0.99.0 on %s", tag, got, want)
		}
	}
	if mod := git(clone, "show", "v0.99.0:runtime/occpgx/go.mod"); !strings.Contains(mod, "github.com/dsqllint/dsqllint/runtime v0.99.0") {
		t.Errorf("the release's runtime/occpgx/go.mod:\n%s", mod)
	}
	if sum := git(clone, "show", "v0.99.0:go.sum"); !strings.Contains(sum, "github.com/dsqllint/dsqllint/runtime v0.99.0 h1:") || !strings.Contains(sum, "github.com/dsqllint/dsqllint/runtime v0.99.0/go.mod h1:") {
		t.Error("the release's go.sum lacks the runtime's hashes")
	}
	if mod := git(clone, "show", "HEAD:go.mod"); !strings.Contains(mod, "github.com/dsqllint/dsqllint/runtime v0.0.0") {
		t.Errorf("the branch's go.mod after tagging:\n%s", mod)
	}
}
