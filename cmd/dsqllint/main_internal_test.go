package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFactsOnly: go vet's run on a dependency (VetxOnly) wants facts
// only; its own packages' runs, the -flags query and an unreadable
// config do not say so.
func TestFactsOnly(t *testing.T) {
	dir := t.TempDir()
	cfg := func(name, json string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(json), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name string
		args []string
		want bool
	}{
		{"a dependency", []string{cfg("dep.cfg", `{"ImportPath": "example.com/dep", "VetxOnly": true}`)}, true},
		{"a package vetted", []string{cfg("root.cfg", `{"ImportPath": "example.com/app", "VetxOnly": false}`)}, false},
		{"analyzer flags before the config", []string{"-disable=DSQL003", cfg("dep2.cfg", `{"VetxOnly": true}`)}, true},
		{"the -flags query", []string{"-flags"}, false},
		{"a config that is not JSON", []string{cfg("bad.cfg", `VetxOnly: true`)}, false},
		{"a missing config", []string{filepath.Join(dir, "missing.cfg")}, false},
	}
	for _, c := range cases {
		if got := factsOnly(c.args); got != c.want {
			t.Errorf("%s: factsOnly = %v, want %v", c.name, got, c.want)
		}
	}
}
