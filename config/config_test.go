package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func known(k string) bool {
	switch k {
	case "dsql-version", "disable", "fence-columns", "schema", "migration-tx":
		return true
	}
	return false
}

func TestParse(t *testing.T) {
	f, err := Parse(".dsqllint.yaml", []byte(`# dsqllint configuration
dsql-version: 2026-08
disable: [DSQL109, DSQL006]
fence-columns:
  - range_id
  - "*_version"
schema: db/migrations
exclude:
  - internal/legacy/**
  - path: cmd/*/main.go
    rules: [DSQL003]
`), known)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range f.Settings {
		got = append(got, s.Key+"="+s.Value+"@"+string(rune('0'+s.Line)))
	}
	if want := "dsql-version=2026-08@2 disable=DSQL109,DSQL006@3 fence-columns=range_id,*_version@5 schema=db/migrations@7"; strings.Join(got, " ") != want {
		t.Errorf("settings %v, want %s", got, want)
	}
	for _, c := range []struct {
		path, rule string
		want       bool
	}{
		{"internal/legacy/store.go", "DSQL001", true},
		{"internal/legacy/sub/q.sql", "DSQL003", true},
		{"internal/legacy", "DSQL003", true},
		{"internal/legacyx/store.go", "DSQL001", false},
		{"cmd/tool/main.go", "DSQL003", true},
		{"cmd/tool/main.go", "DSQL001", false},
		{"cmd/tool/other.go", "DSQL003", false},
	} {
		if got := f.Excluded(c.path, c.rule); got != c.want {
			t.Errorf("Excluded(%s, %s) = %v", c.path, c.rule, got)
		}
	}
}

// Every mistake names the file and the line.
func TestErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"dsql-version: 2026-09\nfence-column: x\n", ".dsqllint.yaml:2: unknown key \"fence-column\""},
		{"disable: {a: b}\n", ".dsqllint.yaml:1: disable: want a value or a list of values, not a mapping"},
		{"disable: x\ndisable: y\n", ".dsqllint.yaml:2: disable is set twice (first at line 1)"},
		{"- a\n- b\n", ".dsqllint.yaml:1: want a mapping of settings (key: value), not a list"},
		{"schema: [a\n", ".dsqllint.yaml:1: did not find expected"},
		{"exclude:\n  - rules: [DSQL003]\n", ".dsqllint.yaml:2: exclude: an entry without a path"},
		{"exclude:\n  - path: a\n    rule: [DSQL003]\n", ".dsqllint.yaml:3: exclude: unknown key \"rule\""},
		{"exclude: a\n", ".dsqllint.yaml:1: exclude: want a list"},
		{"exclude:\n  - \"[\"\n", ".dsqllint.yaml:2: exclude: bad pattern"},
		{"coordination: shards\n", ".dsqllint.yaml:1: coordination: want a list"},
		{"coordination:\n  - owner: [leader]\n    why: x\n", ".dsqllint.yaml:2: coordination: an entry without a table"},
		{"coordination:\n  - table: t\n    why: x\n", ".dsqllint.yaml:2: coordination: t names no version, owner or state column"},
		{"coordination:\n  - table: t\n    owner: [o]\n", ".dsqllint.yaml:2: coordination: t says nothing of why"},
		{"coordination:\n  - table: t\n    owners: [o]\n", ".dsqllint.yaml:3: coordination: unknown key \"owners\""},
	}
	for _, c := range cases {
		_, err := Parse(".dsqllint.yaml", []byte(c.text), known)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %s...", c.text, err, c.want)
		}
	}
	if f, err := Parse(".dsqllint.yaml", []byte("# nothing yet\n"), known); err != nil || len(f.Settings) != 0 {
		t.Errorf("empty file: %v, %v", f, err)
	}
}

func TestFindRoot(t *testing.T) {
	dir := t.TempDir()
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(dir, "go.mod"))
	mk(filepath.Join(dir, "a", "b", "x.go"))
	mk(filepath.Join(dir, "testdata", "src", "p", "x.go"))
	mk(filepath.Join(dir, "testdata", "src", "q", FileName))
	for rel, want := range map[string]string{
		"a/b":               dir,
		".":                 dir,
		"testdata/src/p":    "", // a fixture does not belong to the module around it
		"testdata/src/q":    filepath.Join(dir, "testdata", "src", "q"),
		"testdata/src/q/..": "",
	} {
		if got := FindRoot(filepath.Join(dir, rel)); got != want {
			t.Errorf("FindRoot(%s) = %q, want %q", rel, got, want)
		}
	}
}

// TestCoordination: tables declared coordinated by what the code cannot
// show, for DSQL003.
func TestCoordination(t *testing.T) {
	f, err := Parse(".dsqllint.yaml", []byte(`coordination:
  - table: Schedules
    owner: leader
    state: [next_run, Paused]
    why: a Redis mutex
  - table: documents
    version: [revision]
    why: one writer today
`), known)
	if err != nil {
		t.Fatal(err)
	}
	want := []Coordination{
		{Table: "schedules", Owner: []string{"leader"}, State: []string{"next_run", "paused"}, Why: "a Redis mutex", Line: 2},
		{Table: "documents", Version: []string{"revision"}, Why: "one writer today", Line: 6},
	}
	if len(f.Coordination) != len(want) {
		t.Fatalf("got %+v", f.Coordination)
	}
	for i, c := range f.Coordination {
		w := want[i]
		if c.Table != w.Table || strings.Join(c.Owner, ",") != strings.Join(w.Owner, ",") || strings.Join(c.State, ",") != strings.Join(w.State, ",") ||
			strings.Join(c.Version, ",") != strings.Join(w.Version, ",") || c.Why != w.Why || c.Line != w.Line {
			t.Errorf("entry %d: got %+v, want %+v", i, c, w)
		}
	}
}
