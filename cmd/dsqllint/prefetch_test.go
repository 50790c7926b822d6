package main

import (
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The prefetch parses what `go list` will hand the loader for ./...,
// and serves a file only for the bytes it parsed.
func TestPrefetch(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":               "module example.com/m\n\ngo 1.22\n",
		"a.go":                 "package m\n",
		"a_test.go":            "package m\n",
		"never.go":             "//go:build never\n\npackage m\n",
		"sub/s.go":             "package sub\n",
		"testdata/x.go":        "package x\n",
		"vendor/v/v.go":        "package v\n",
		"_skip/y.go":           "package y\n",
		".hidden/z.go":         "package z\n",
		"nested/go.mod":        "module example.com/nested\n",
		"nested/n.go":          "package nested\n",
		"sub/notgo.txt":        "package txt\n",
		"sub/deeper/d.go":      "package deeper\n",
		"sub/deeper/d_test.go": "package deeper\n",
	}
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	abs := func(name string) string { return filepath.Join(dir, name) }

	for _, tests := range []bool{false, true} {
		fset := token.NewFileSet()
		p := startPrefetch(fset, []string{"./..."}, tests, "")
		p.stopped.Wait() // let it finish: the loader would have asked by now
		var listed []string
		for name := range p.files {
			rel, _ := filepath.Rel(dir, name)
			listed = append(listed, filepath.ToSlash(rel))
		}
		slices.Sort(listed)
		want := []string{"a.go", "never.go", "sub/deeper/d.go", "sub/s.go"}
		if tests {
			want = []string{"a.go", "a_test.go", "never.go", "sub/deeper/d.go", "sub/deeper/d_test.go", "sub/s.go"}
		}
		if !slices.Equal(listed, want) {
			t.Errorf("tests=%v: listed %v, want %v", tests, listed, want)
		}
		if p.files[abs("never.go")].file != nil {
			t.Errorf("tests=%v: a file its build constraint excludes was parsed", tests)
		}

		src := []byte(files["a.go"])
		prefetched := p.files[abs("a.go")].file
		first, err := p.parseFile(fset, abs("a.go"), src)
		if err != nil || first == nil {
			t.Fatalf("parseFile: %v", err)
		}
		if prefetched == nil || first != prefetched {
			t.Errorf("tests=%v: the loader was not handed the prefetched file", tests)
		}
		if again, _ := p.parseFile(fset, abs("a.go"), src); again == first {
			t.Errorf("tests=%v: one prefetched syntax tree was handed out twice", tests)
		}
		changed, err := p.parseFile(fset, abs("a.go"), []byte("package changed\n"))
		if err != nil || changed == first || changed.Name.Name != "changed" {
			t.Errorf("tests=%v: bytes the prefetch did not parse were served its parse", tests)
		}
		other, err := p.parseFile(fset, abs("testdata/x.go"), []byte(files["testdata/x.go"]))
		if err != nil || other.Name.Name != "x" {
			t.Errorf("tests=%v: a file outside the prefetch was not parsed: %v", tests, err)
		}
		p.done()
		if p.files != nil {
			t.Errorf("tests=%v: the prefetch keeps its files after the load", tests)
		}
	}
}

// Patterns that name no directory are left to the loader.
func TestPrefetchImportPaths(t *testing.T) {
	p := startPrefetch(token.NewFileSet(), []string{"std", "example.com/m/..."}, true, "")
	p.stopped.Wait()
	if len(p.files) != 0 {
		t.Errorf("listed %d files for import path patterns, want none", len(p.files))
	}
	p.done()
}
