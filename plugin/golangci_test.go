package plugin_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// golangciVersion is the golangci-lint release the plugin is tested in. It
// needs go 1.26 and x/tools v0.52.0; the throwaway module that builds it
// may require those, dsqllint's own go.mod stays lower.
const golangciVersion = "v2.15.0"

// TestGolangciLint builds golangci-lint with the plugin compiled in, the
// way `golangci-lint custom` does but from the module proxy instead of a
// git clone, and runs it on the bundled example. The build takes a couple
// of minutes on a cold cache and seconds on a warm one; it happens once.
func TestGolangciLint(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	golangci := buildGolangci(t, root)
	cache := t.TempDir() // golangci-lint's own result cache, fresh per run

	t.Run("report", func(t *testing.T) {
		dir := exampleModule(t, root, golangciConfig("disable: [DSQL003]"))
		issues, out := runGolangci(t, golangci, cache, dir, 1, "run", "./...")
		for _, want := range []string{
			"store.go:17:42: DSQL001 share-lock: FOR SHARE",
			"store.go:21:71: DSQL002 mysql-share-lock:",
			"tx.go:14:46: DSQL009 isolation-level:",
			// a lock of another package, judged where its transaction begins
			// with the summary that package's fact carries
			"leasing.go:19:13: DSQL005 lock-without-retry: SELECT ... FOR UPDATE at tx.go:42 runs in the transaction begun at leasing.go:19",
		} {
			if !strings.Contains(issues, want) {
				t.Errorf("golangci-lint does not report %q:\n%s\n%s", want, issues, out)
			}
		}
		if strings.Contains(issues, "DSQL003") {
			t.Errorf("settings disable: [DSQL003] ignored:\n%s", issues)
		}
	})

	t.Run("nolint", func(t *testing.T) {
		dir := exampleModule(t, root, golangciConfig(""))
		edit(t, filepath.Join(dir, "store.go"), `lockShardBase + " FOR SHARE"`, `lockShardBase + " FOR SHARE" //nolint:dsqllint // read-only replica, checked elsewhere`)
		issues, out := runGolangci(t, golangci, cache, dir, 1, "run", "./...")
		if strings.Contains(issues, "store.go:17:") {
			t.Errorf("//nolint:dsqllint does not silence the finding on its line:\n%s", issues)
		}
		if !strings.Contains(issues, "store.go:21:71: DSQL002") {
			t.Errorf("the other findings are gone too:\n%s\n%s", issues, out)
		}
	})

	t.Run("fix", func(t *testing.T) {
		dir := exampleModule(t, root, golangciConfig(""))
		runGolangci(t, golangci, cache, dir, -1, "run", "--fix", "./...")
		data, _ := os.ReadFile(filepath.Join(dir, "store.go"))
		for _, want := range []string{`lockShardBase + " FOR UPDATE"`, `shard_id = ? FOR UPDATE"`} {
			if !strings.Contains(string(data), want) {
				t.Errorf("--fix did not write %s:\n%s", want, data)
			}
		}
		if out, err := goCmd(dir, "build", "./...").CombinedOutput(); err != nil {
			t.Errorf("the fixed example does not build: %v\n%s", err, out)
		}
		issues, _ := runGolangci(t, golangci, cache, dir, -1, "run", "./...")
		if strings.Contains(issues, "DSQL001") || strings.Contains(issues, "DSQL002") {
			t.Errorf("fixable findings left after --fix:\n%s", issues)
		}
	})

	t.Run("configuration file", func(t *testing.T) {
		// golangci-lint caches a package's issues by its Go source, which
		// these runs share: each gets a fresh cache (docs/integrations.md).
		cache := t.TempDir
		dir := exampleModule(t, root, golangciConfig(""))
		write(t, filepath.Join(dir, ".dsqllint.yaml"), "disable: [DSQL001]\n")
		issues, out := runGolangci(t, golangci, cache(), dir, 1, "run", "./...")
		if strings.Contains(issues, "DSQL001") || !strings.Contains(issues, "DSQL002") {
			t.Errorf(".dsqllint.yaml disable: [DSQL001] not honoured:\n%s\n%s", issues, out)
		}
		// A golangci-lint setting overrides the file.
		dir = exampleModule(t, root, golangciConfig("disable: [DSQL003]"))
		write(t, filepath.Join(dir, ".dsqllint.yaml"), "disable: [DSQL001]\n")
		issues, out = runGolangci(t, golangci, cache(), dir, 1, "run", "./...")
		if !strings.Contains(issues, "DSQL001") || strings.Contains(issues, "DSQL003") {
			t.Errorf("the golangci-lint setting does not override the file:\n%s\n%s", issues, out)
		}
		// A bad file is an error at its line.
		write(t, filepath.Join(dir, ".dsqllint.yaml"), "# settings\nfence-column: [x]\n")
		_, out = runGolangci(t, golangci, cache(), dir, -1, "run", "./...")
		if !strings.Contains(out, `.dsqllint.yaml:2: unknown key`) {
			t.Errorf("a bad .dsqllint.yaml is not an error at its line:\n%s", out)
		}
	})

	t.Run("strict settings", func(t *testing.T) {
		dir := exampleModule(t, root, golangciConfig("fence_columns: [range_id]"))
		_, out := runGolangci(t, golangci, cache, dir, -1, "run", "./...")
		if !strings.Contains(out, `unknown setting "fence_columns"`) {
			t.Errorf("an unknown settings key is not an error:\n%s", out)
		}
	})
}

// goCmd is the go command in dir with the environment the builds need:
// this toolchain (no download), cgo as the caller has it, and go.mod
// updated as needed.
func goCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"))
	return cmd
}

// buildGolangci builds golangci-lint with the plugin blank-imported into a
// main calling commands.Execute, in a throwaway module that replaces
// dsqllint with this checkout. Compiled packages land in the Go build
// cache, so later runs only link.
func buildGolangci(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), fmt.Sprintf(`module example.com/golangci-dsqllint

go 1.26.0

require (
	github.com/dsqllint/dsqllint v0.0.0
	github.com/golangci/golangci-lint/v2 %s
)

replace (
	github.com/dsqllint/dsqllint => %[2]s
	github.com/dsqllint/dsqllint/internal/pgtest => %[2]s/internal/pgtest
	github.com/dsqllint/dsqllint/runtime => %[2]s/runtime
	github.com/dsqllint/dsqllint/runtime/occpgx => %[2]s/runtime/occpgx
	github.com/dsqllint/dsqllint/runtime/occprom => %[2]s/runtime/occprom
)
`, golangciVersion, root))
	write(t, filepath.Join(dir, "main.go"), `// Command golangci-lint is golangci-lint with the dsqllint plugin built in,
// what "golangci-lint custom" produces from .custom-gcl.yml.
package main

import (
	"fmt"
	"os"
	"runtime"

	"github.com/golangci/golangci-lint/v2/pkg/commands"

	_ "github.com/dsqllint/dsqllint/plugin"
)

func main() {
	info := commands.BuildInfo{Version: "`+strings.TrimPrefix(golangciVersion, "v")+`", GoVersion: runtime.Version(), Commit: "dsqllint plugin test", Date: "unknown"}
	if err := commands.Execute(info); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
`)
	start := time.Now()
	if out, err := goCmd(dir, "mod", "tidy").CombinedOutput(); err != nil {
		if reason := proxyUnreachable(); reason != "" {
			msg := fmt.Sprintf("\n*** SKIPPED %s: the Go module proxy is unreachable (%s), so golangci-lint %s cannot be fetched.\n*** The golangci-lint plugin is NOT tested in this run.\n", t.Name(), reason, golangciVersion)
			fmt.Fprint(os.Stderr, msg)
			t.Skip(msg)
		}
		t.Fatalf("resolving golangci-lint %s and dsqllint: %v\n%s", golangciVersion, err, out)
	}
	resolved := time.Since(start)
	bin := filepath.Join(dir, "golangci-lint")
	if out, err := goCmd(dir, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building golangci-lint %s with the plugin: %v\n%s", golangciVersion, err, out)
	}
	t.Logf("golangci-lint %s with the plugin: modules resolved in %v, built in %v", golangciVersion, resolved.Round(time.Second), (time.Since(start) - resolved).Round(time.Second))
	return bin
}

// proxyUnreachable returns why the first module proxy in GOPROXY cannot be
// reached, or "" when it answers.
func proxyUnreachable() string {
	out, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		return ""
	}
	for _, p := range strings.FieldsFunc(strings.TrimSpace(string(out)), func(r rune) bool { return r == ',' || r == '|' }) {
		switch {
		case p == "off":
			return "GOPROXY=off"
		case strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://"):
			client := &http.Client{Timeout: 30 * time.Second}
			resp, err := client.Get(strings.TrimSuffix(p, "/") + "/github.com/golangci/golangci-lint/v2/@v/" + golangciVersion + ".info")
			if err != nil {
				return err.Error()
			}
			resp.Body.Close()
			if resp.StatusCode >= 500 {
				return p + " answers " + resp.Status
			}
			return ""
		}
	}
	return ""
}

// exampleModule copies examples/shardstore into its own module that
// replaces dsqllint with this checkout, with the given .golangci.yml.
func exampleModule(t *testing.T, root, config string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(root, "examples", "shardstore")
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// The copy is a module of its own: its packages import each other by it.
		data = bytes.ReplaceAll(data, []byte(`"github.com/dsqllint/dsqllint/examples/shardstore"`), []byte(`"example.com/shardstore"`))
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.mod"), "module example.com/shardstore\n\ngo 1.22\n\nrequire github.com/dsqllint/dsqllint/runtime v0.0.0\n\nreplace github.com/dsqllint/dsqllint/runtime => "+filepath.Join(root, "runtime")+"\n")
	write(t, filepath.Join(dir, ".golangci.yml"), config)
	if out, err := goCmd(dir, "mod", "tidy").CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy in the example: %v\n%s", err, out)
	}
	return dir
}

// golangciConfig is a .golangci.yml that enables only dsqllint, with the
// given lines under its settings, and every finding of a line shown (as
// docs/integrations.md advises).
func golangciConfig(settings string) string {
	cfg := `version: "2"
issues:
  uniq-by-line: false
linters:
  default: none
  enable:
    - dsqllint
  settings:
    custom:
      dsqllint:
        type: module
        description: SQL that breaks or silently weakens on Aurora DSQL
        original-url: github.com/dsqllint/dsqllint
`
	if settings != "" {
		cfg += "        settings:\n          " + settings + "\n"
	}
	return cfg
}

// runGolangci runs golangci-lint in dir and returns its issues as
// "file:line:col: text" lines (from its JSON output) and its text output.
// wantCode < 0 accepts any exit status.
func runGolangci(t *testing.T, bin, cache, dir string, wantCode int, args ...string) (issues, output string) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "report.json")
	if args[0] == "run" {
		args = append([]string{"run", "--output.json.path=" + report}, args[1:]...)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOLANGCI_LINT_CACHE="+cache)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	output = stdout.String() + stderr.String()
	if wantCode >= 0 && code != wantCode {
		t.Fatalf("golangci-lint %s: exit %d, want %d\n%s", strings.Join(args, " "), code, wantCode, output)
	}
	var issuesJSON struct {
		Issues []struct {
			FromLinter string
			Text       string
			Pos        struct {
				Filename     string
				Line, Column int
			}
		}
	}
	if data, err := os.ReadFile(report); err == nil && json.Unmarshal(data, &issuesJSON) == nil {
		var lines []string
		for _, is := range issuesJSON.Issues {
			if is.FromLinter != "dsqllint" {
				t.Errorf("issue from %s: %s", is.FromLinter, is.Text)
			}
			lines = append(lines, fmt.Sprintf("%s:%d:%d: %s", is.Pos.Filename, is.Pos.Line, is.Pos.Column, is.Text))
		}
		issues = strings.Join(lines, "\n")
	}
	return issues, output
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// edit replaces the one occurrence of old in a file.
func edit(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(data), old) != 1 {
		t.Fatalf("%s: %q occurs %d times, want once", path, old, strings.Count(string(data), old))
	}
	write(t, path, strings.Replace(string(data), old, new, 1))
}
