package main

import (
	"bytes"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/analyzer"
)

// TestJSONMatchesXTools: -json in package mode prints exactly what x/tools'
// own printer prints for the same graph, test variants and fixes included.
func TestJSONMatchesXTools(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.25\n",
		"m.go": "package m\n\nconst q = \"SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE\"\n\nconst u = \"UPDATE leases SET worker_id = $1, expires_at = $2 WHERE resource_id = $3\"\n\nconst r = \"UPDATE leases SET expires_at = $1 WHERE resource_id = $2 AND worker_id = $3\"\n" +
			"\nconst c = \"UPDATE leases SET worker_id = $1, expires_at = $2 WHERE resource_id = $3 AND expires_at < now()\"\n",
		"m_test.go": "package m\n\nconst qt = \"SELECT 1 FROM t WHERE id = $1 FOR SHARE\"\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	// The module stage's findings (DSQL005 on the share locks' retry once
	// fixed, DSQL003, which only the module stage judges under the
	// command) are what x/tools' printer cannot show: compare without
	// them.
	a := analyzer.New()
	if err := a.Flags.Set("disable", "DSQL005,DSQL003"); err != nil {
		t.Fatal(err)
	}
	res, graph, code := checkPackages(a, []string{"./..."}, true, "", false)
	if res == nil || code != exitClean {
		t.Fatalf("checkPackages: exit %d", code)
	}
	var got, want bytes.Buffer
	if err := writeJSON(&got, res); err != nil {
		t.Fatal(err)
	}
	if err := graph.PrintJSON(&want); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("writeJSON:\n%s\nx/tools PrintJSON:\n%s", got.String(), want.String())
	}
	if !bytes.Contains(got.Bytes(), []byte(`"example.com/m [example.com/m.test]"`)) || !bytes.Contains(got.Bytes(), []byte(`"suggested_fixes"`)) {
		t.Errorf("the fixture lost its test variant or its fixes:\n%s", got.String())
	}
	// The other formats show each finding once.
	if fs := res.findings(); len(fs) != 2 {
		t.Errorf("%d distinct findings, want 2", len(fs))
	}
}

func TestGitHubEscaping(t *testing.T) {
	if got := escapeData("100% sure\r\nnext"); got != "100%25 sure%0D%0Anext" {
		t.Errorf("escapeData: %q", got)
	}
	if got := escapeProperty("dir,a/b:c%.go"); got != "dir%2Ca/b%3Ac%25.go" {
		t.Errorf("escapeProperty: %q", got)
	}
}

func TestParseOutputs(t *testing.T) {
	outs, err := parseOutputs("github,sarif:out/report.sarif,text")
	if err != nil || len(outs) != 3 || outs[1] != (output{"sarif", "out/report.sarif"}) {
		t.Errorf("parseOutputs: %v, %v", outs, err)
	}
	for _, bad := range []string{"", "xml", "json,sarif", "github,github"} {
		if _, err := parseOutputs(bad); err == nil {
			t.Errorf("parseOutputs(%q) accepted", bad)
		}
	}
}

func TestRelPath(t *testing.T) {
	root := t.TempDir()
	for name, want := range map[string]string{
		filepath.Join(root, "a", "b.go"):  "a/b.go",
		root + "x/c.go":                   filepath.ToSlash(root + "x/c.go"), // a sibling sharing the prefix
		filepath.Join(root, "..", "d.go"): filepath.ToSlash(filepath.Join(filepath.Dir(root), "d.go")),
	} {
		if got := relPath(root, name); got != want {
			t.Errorf("relPath(%q) = %q, want %q", name, got, want)
		}
	}
}

// One finding reported twice (a package and its test variant, worded
// apart) is shown once, in its first wording; another rule's finding at
// the same place, and the same rule's at another place, stay.
func TestFindingsDistinct(t *testing.T) {
	fset := token.NewFileSet()
	f := fset.AddFile("/repo/store.go", -1, 100)
	f.SetLines([]int{0, 50})
	at := func(off int) token.Pos { return f.Pos(off) }
	reported := func(off int, rule, msg string) diag {
		return diag{pkg: "p", Diagnostic: analysis.Diagnostic{Pos: at(off), End: at(off + 5), Category: rule, Message: msg}}
	}
	r := &result{fset: fset, root: "/repo", diags: []diag{
		reported(60, "DSQL001", "c"),
		reported(10, "DSQL001", "x"),
		reported(60, "DSQL002", "b"),
		reported(60, "DSQL001", "a"), // the first wording in the order shown
		reported(10, "DSQL001", "x"),
	}}
	var got []string
	for _, f := range r.findings() {
		got = append(got, fmt.Sprintf("%d %s %s", f.pos.Offset, f.Category, f.Message))
	}
	want := []string{"10 DSQL001 x", "60 DSQL001 a", "60 DSQL002 b"}
	if !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
}
