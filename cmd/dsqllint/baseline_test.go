package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// edit rewrites a file of dir through f.
func edit(t *testing.T, dir, name string, f func(string) string) {
	t.Helper()
	path := filepath.Join(dir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(f(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// findings counts reported findings in text output.
func findings(out string) int { return strings.Count(out, ": DSQL") }

func TestBaselineRoundTrip(t *testing.T) {
	root, svc := fixtureRepo(t, true)
	base := filepath.Join(root, "dsqllint-baseline.json")

	out, code := run(t, svc, bin, "-write-baseline="+base, "./...")
	if code != 0 || findings(out) != 0 || !strings.Contains(out, "recorded 4 findings") {
		t.Fatalf("-write-baseline: exit %d\n%s", code, out)
	}
	var b struct {
		Version  int
		Findings []struct {
			Rule, File, Hash string
			Count            int
		}
	}
	data, _ := os.ReadFile(base)
	if err := json.Unmarshal(data, &b); err != nil || b.Version != 1 || len(b.Findings) != 4 {
		t.Fatalf("baseline file (%v):\n%s", err, data)
	}
	for _, e := range b.Findings {
		if !strings.HasPrefix(e.File, "svc/") || e.Hash == "" || e.Count != 1 || strings.Contains(string(data), `"line"`) {
			t.Errorf("baseline entry %+v: want a repository-relative file, a hash and no line", e)
		}
	}

	// Unrelated edits move every finding to another line and re-align the
	// lines around them: nothing is new.
	edit(t, svc, "store.go", func(s string) string {
		s = strings.Replace(s, "import \"embed\"\n", "import \"embed\"\n\n// Unrelated: a new, clean query.\nconst readOrderTotal = \"SELECT total FROM orders WHERE id = $1\"\n", 1)
		return strings.Replace(s, "const readOrder = ", "const readOrder    =   ", 1)
	})
	edit(t, svc, "queries/orders.sql", func(s string) string {
		return "-- name: CountOrders :one\nSELECT count(*) FROM orders;\n\n" + s
	})
	for _, args := range [][]string{{"./..."}, {"-format=sarif", "./..."}, {"-format=github", "./..."}} {
		out, code = run(t, svc, bin, append([]string{"-baseline=" + base}, args...)...)
		if code != 0 || findings(out) != 0 || strings.Contains(out, "::") || !strings.Contains(out, "4 findings matched the baseline") {
			t.Errorf("%v after unrelated edits: exit %d\n%s", args, code, out)
		}
	}
	// Without the baseline all four are still there, on new lines.
	if out, _ := run(t, svc, bin, "./..."); findings(out) != 4 || !strings.Contains(out, "store.go:15:") {
		t.Errorf("without -baseline:\n%s", out)
	}

	// One new FOR SHARE: exactly one finding, and the exit status fails.
	edit(t, svc, "store.go", func(s string) string {
		return s + "\nconst readOrderAgain = \"SELECT status, total FROM orders WHERE id = $1 FOR SHARE\"\n"
	})
	out, code = run(t, svc, bin, "-baseline="+base, "./...")
	if code != 3 || findings(out) != 1 || !strings.Contains(out, "store.go:29:") || !strings.Contains(out, "DSQL001 share-lock") {
		t.Errorf("after adding a FOR SHARE: exit %d, want 3 and one finding\n%s", code, out)
	}
	out, _, code = runSplit(t, svc, bin, "-baseline="+base, "-format=sarif", "./...")
	if doc := validSARIF(t, out); code != 3 || len(doc.Runs[0].Results) != 1 {
		t.Errorf("SARIF after adding a FOR SHARE: exit %d\n%s", code, out)
	}

	// Fixing a recorded finding leaves a stale entry, which is reported.
	edit(t, svc, "store.go", func(s string) string {
		return strings.Replace(s, "WHERE id = $1 FOR SHARE\"\n\n// A lease", "WHERE id = $1 FOR UPDATE\"\n\n// A lease", 1)
	})
	if out, _ := run(t, svc, bin, "-baseline="+base, "./..."); !strings.Contains(out, "3 findings matched the baseline") || !strings.Contains(out, "1 recorded there no longer occur") {
		t.Errorf("after fixing a recorded finding:\n%s", out)
	}
}

// TestBaselineSQLMode: plain .sql mode, and duplicates counted: a second
// copy of a recorded statement is one new finding.
func TestBaselineSQLMode(t *testing.T) {
	_, svc := fixtureRepo(t, true)
	out, code := run(t, svc, bin, "-write-baseline=base.json", "queries")
	if code != 0 || !strings.Contains(out, "recorded 1 findings") {
		t.Fatalf("-write-baseline: exit %d\n%s", code, out)
	}
	edit(t, svc, "queries/orders.sql", func(s string) string {
		return "-- Unrelated.\nSELECT 1;\n" + s
	})
	if out, code := run(t, svc, bin, "-baseline=base.json", "queries"); code != 0 || findings(out) != 0 {
		t.Errorf("after an unrelated edit: exit %d\n%s", code, out)
	}
	edit(t, svc, "queries/orders.sql", func(s string) string {
		return s + "\n-- name: ReadOrderAgain :one\nSELECT status FROM orders\nWHERE id = $1\nFOR SHARE;\n"
	})
	out, code = run(t, svc, bin, "-baseline=base.json", "queries")
	if code != 3 || findings(out) != 1 || !strings.Contains(out, "orders.sql:11:1: DSQL001") {
		t.Errorf("a duplicate of a recorded statement: exit %d, want 3 and one finding\n%s", code, out)
	}
	// The same baseline serves package mode, which reaches the file
	// through //go:embed: the keys do not depend on the mode.
	if out, _ := run(t, svc, bin, "-baseline=base.json", "-format=github", "./..."); strings.Count(out, "orders.sql") != 1 {
		t.Errorf("package mode with a .sql-mode baseline:\n%s", out)
	}

	// A baseline of another format or version is an error, not a silent
	// "everything is new".
	os.WriteFile(filepath.Join(svc, "bad.json"), []byte(`{"version": 9, "tool": "dsqllint", "findings": []}`), 0o644)
	if out, code := run(t, svc, bin, "-baseline=bad.json", "queries"); code != 1 || !strings.Contains(out, "version 9") {
		t.Errorf("a baseline of version 9: exit %d\n%s", code, out)
	}
	if out, code := run(t, svc, bin, "-baseline=missing.json", "queries"); code != 1 {
		t.Errorf("a missing baseline: exit %d\n%s", code, out)
	}
}

// TestFixWithBaseline: -fix applies only the fixes of new findings.
func TestFixWithBaseline(t *testing.T) {
	_, svc := fixtureRepo(t, true)
	if out, code := run(t, svc, bin, "-write-baseline=base.json", "queries"); code != 0 {
		t.Fatalf("-write-baseline: exit %d\n%s", code, out)
	}
	edit(t, svc, "queries/orders.sql", func(s string) string {
		return s + "\nSELECT total FROM orders WHERE id = $1 FOR SHARE;\n"
	})
	if out, code := run(t, svc, bin, "-baseline=base.json", "-fix", "queries"); code != 0 {
		t.Fatalf("-fix: exit %d\n%s", code, out)
	}
	data, _ := os.ReadFile(filepath.Join(svc, "queries/orders.sql"))
	if got := string(data); !strings.Contains(got, "WHERE id = $1\nFOR SHARE;") || !strings.Contains(got, "total FROM orders WHERE id = $1 FOR UPDATE;") {
		t.Errorf("-fix with a baseline:\n%s", got)
	}
}
