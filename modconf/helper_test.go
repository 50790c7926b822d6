package modconf_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dsqllint/dsqllint/modconf"
)

// TestHelper: which packages outside those linted, that a linted package
// imports, have their summaries joined — those whose source checks for
// SQLSTATE 40001 (in the repository, a predicate named for it too), never
// a driver's SQLSTATE table nor a number in a table.
func TestHelper(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) []string {
		name := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{name}
	}
	const retry = "package r\n\nfunc conflict(code string) bool { return code == \"40001\" }\n"
	cases := []struct {
		name     string
		files    []string
		imported bool
		want     bool
	}{
		{"kept in the repository, a retry helper", write("repo/txkit/txkit.go", retry), true, true},
		{"kept in the repository, a predicate named for it", write("repo/errs/errs.go", "package errs\n\nfunc IsRetryable(err error) bool { return err != nil }\n"), true, true},
		{"kept in the repository, none", write("repo/log/log.go", "package log\n"), true, false},
		{"kept in the repository, not imported", write("repo/txkit2/txkit.go", retry), false, false},
		{"library retry helper", write("cache/example.com/retry@v1.2.0/retry.go", retry), true, true},
		{"library retry helper nobody imports", write("cache/example.com/retry2@v1.2.0/retry.go", retry), false, false},
		{"condition name", write("cache/example.com/pgerr@v1.0.0/e.go", "package e\n\nconst SerializationFailure = \"40001\"\n"), true, true},
		{"class beside an SQLState", write("cache/example.com/cls@v1.0.0/c.go", "package c\n\nfunc f(e interface{ SQLState() string }) bool { return e.SQLState()[:2] == \"40\" }\n"), true, true},
		{"a driver's SQLSTATE table", write("cache/example.com/pq@v1.10.9/pq.go", "package pq\n\nimport \"database/sql/driver\"\n\nvar _ driver.Driver\nvar names = map[string]string{\"40001\": \"serialization_failure\"}\n"), true, false},
		{"a number in a table", write("cache/modernc.org/mathutil@v1.6.0/tables.go", "package mathutil\n\nvar primes = []int{39989, 40001, 40009}\n"), true, false},
		{"a codec's serialization error", write("cache/example.com/codec@v1.0.0/c.go", "package codec\n\nvar err = \"serialization error\"\n"), true, false},
		{"vendored retry helper", write("repo/vendor/example.com/retry/retry.go", retry), true, true},
		{"vendored, none", write("repo/vendor/example.com/other/o.go", "package other\n"), true, false},
	}
	for _, c := range cases {
		if got := modconf.Helper(c.files, c.imported); got != c.want {
			t.Errorf("%s: Helper = %v, want %v", c.name, got, c.want)
		}
	}
}
