package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	modver "golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// TestHelperModules: a retry helper and a locking query wrapper kept in
// another module — nested in the repository and reached by a replace
// directive, or a library fetched from a module proxy — cover the
// module's locks, or fail to, as a package of the module would; so does
// one kept in the repository (txpop) that leaves the check to its
// module's error translation layer (sqlerr: what a 40001 becomes), its
// own source never spelling the code. The dsqllint command and go vet
// report the same: the twin of each covered lock that runs outside the
// retry, and nothing else. (A library's helper of that kind is not read:
// its source would have to be read beside every dependency's, under go
// vet; the claims package is left out of that case.)
func TestHelperModules(t *testing.T) {
	const src = "testdata/helpermod"
	want := []string{
		"store/store.go:26: SELECT ... FOR UPDATE runs in the transaction begun at store.go:21", // ClaimOnce
		"store/store.go:39: SELECT ... FOR UPDATE at txkit.go:35 runs in the transaction begun", // TouchOnce, naming txkit's lock
	}
	translated := "claims/claims.go:24: SELECT ... FOR UPDATE runs in the transaction begun at txpop.go:27" // ClaimTranslatedOnce
	cases := map[string]func(t *testing.T) (dir string, env []string){
		"replace": func(t *testing.T) (string, []string) {
			dir := t.TempDir()
			copyTree(t, filepath.Join(src, "app"), dir)
			copyTree(t, filepath.Join(src, "txkit"), filepath.Join(dir, "txkit"))
			writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/app\n\ngo 1.22\n\nrequire example.com/txkit v0.0.0\n\nreplace example.com/txkit => ./txkit\n")
			return dir, nil
		},
		"library": func(t *testing.T) (string, []string) {
			proxy := t.TempDir()
			publish(t, proxy, filepath.Join(src, "txkit"), modver.Version{Path: "example.com/txkit", Version: "v1.0.0"})
			dir := t.TempDir()
			copyTree(t, filepath.Join(src, "app"), dir)
			if err := os.RemoveAll(filepath.Join(dir, "claims")); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/app\n\ngo 1.22\n\nrequire example.com/txkit v1.0.0\n")
			return dir, []string{"GOPROXY=file://" + filepath.ToSlash(proxy), "GOSUMDB=off", "GOFLAGS=-mod=mod -modcacherw",
				"GOMODCACHE=" + t.TempDir()}
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			dir, env := setup(t)
			want := want
			if name == "replace" {
				want = append([]string{translated}, want...)
			}
			for _, cmd := range [][]string{{bin, "./..."}, {"go", "vet", "-vettool=" + bin, "./..."}} {
				out := runEnv(t, dir, env, cmd...)
				got := lockFindings(out)
				if len(got) != len(want) {
					t.Errorf("%s: %d DSQL005 findings, want %d:\n%s", cmd[0], len(got), len(want), out)
					continue
				}
				for i, w := range want {
					if !strings.HasPrefix(got[i], w) {
						t.Errorf("%s: finding %d = %q, want it to begin %q", cmd[0], i, got[i], w)
					}
				}
			}
		})
	}
}

// lockFindings returns each DSQL005 finding of out as "file:line: message".
func lockFindings(out string) []string {
	re := regexp.MustCompile(`(?m)^(\S+\.go):(\d+):\d+: DSQL005 [a-z-]+: (.*)$`)
	var got []string
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		got = append(got, m[1]+":"+m[2]+": "+m[3])
	}
	slices.Sort(got)
	return got
}

// runEnv runs a command in dir with env added to the test's environment.
func runEnv(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%v: %v", args, err)
	}
	return string(out)
}

func writeFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// publish lays out the module in dir as version v of a GOPROXY=file://
// proxy rooted at proxy.
func publish(t *testing.T, proxy, dir string, v modver.Version) {
	t.Helper()
	at := filepath.Join(proxy, filepath.FromSlash(v.Path), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(at, v.Version+".mod"), string(mod))
	writeFile(t, filepath.Join(at, v.Version+".info"), `{"Version":"`+v.Version+`","Time":"2026-01-01T00:00:00Z"}`)
	writeFile(t, filepath.Join(at, "list"), v.Version+"\n")
	f, err := os.Create(filepath.Join(at, v.Version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := modzip.CreateFromDir(f, v, dir); err != nil {
		t.Fatal(err)
	}
}
