package analyzer_test

import (
	"go/token"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/dsqllint/dsqllint/analyzer"
)

// lockNamed is the lock a DSQL005 finding names: its own place, or, for a
// finding a package makes at its Begin about a lock of an imported
// package, the lock's "file.go:line" in the message.
var lockNamed = regexp.MustCompile(`^DSQL005 [a-z-]+: SELECT \.\.\. [A-Z ]+(?: \([^)]*\))? at ([\w.-]+\.(?:go|sql):\d+)`)

// locksOf returns, per rule, where the findings of one driver are: a
// DSQL005 by the lock it names.
func locksOf(fset *token.FileSet, diags []analysis.Diagnostic, rule string) []string {
	var out []string
	for _, d := range diags {
		if d.Category != rule {
			continue
		}
		p := fset.Position(d.Pos)
		at := filepathBase(p.Filename) + ":" + itoa(p.Line)
		if m := lockNamed.FindStringSubmatch(d.Message); m != nil {
			at = m[1]
		}
		if !slices.Contains(out, at) {
			out = append(out, at)
		}
	}
	sort.Strings(out)
	return out
}

func filepathBase(name string) string { return name[strings.LastIndexByte(name, '/')+1:] }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestDriversAgree: on every multi-package testdata module, go vet's
// per-package driver (facts) names the locks the dsqllint command's module
// stage reports, DSQL003 and DSQL004 alike, but for the differences listed
// here, each with its cause (docs/integrations.md). A change on either
// side shows here.
func TestDriversAgree(t *testing.T) {
	type diff struct {
		onlyModule, onlyVet []string
		why                 string // the cause, in docs/integrations.md
	}
	const (
		root      = "a lock on the transaction an exported function is handed, which no package calls: only the whole module shows no caller retries"
		noRetry   = "nothing in the module retries on 40001: only the whole module shows it, and then every lock, followed or not, is reported"
		crossImpl = "an interface implemented, or decorated with a retry, in a package that does not import the caller's: facts travel along imports only"
		fences    = "DSQL003's fences are learned from every package by the module stage; a package judges its writes with its own and those its imports carry"
		exported  = "a statement on a pool in an exported function: a package alone cannot see that its callers retry"
		untraced  = "a transaction kept where the package cannot trace it: the module stage reports it, one package at a time it is not judged"
	)
	known := map[string]map[string]diff{
		"casmod":      {"DSQL004": {onlyModule: []string{"lease.go:19"}, why: crossImpl}},
		"decomod":     {"DSQL005": {onlyVet: []string{"pg.go:17", "pg.go:41", "pgdriver.go:29"}, why: crossImpl}},
		"fencemod":    {"DSQL003": {onlyModule: []string{"complete.go:41"}, why: fences}},
		"leadermod":   {"DSQL003": {onlyModule: []string{"plugin.go:27", "plugin.go:40"}, onlyVet: []string{"leaders.sql:13"}, why: fences}},
		"noretrymod":  {"DSQL005": {onlyModule: []string{"adapter.go:20", "sub.go:35"}, why: noRetry}},
		"ormmod":      {"DSQL005": {onlyModule: []string{"store.go:24", "store.go:32", "store.go:39"}, why: noRetry}},
		"sqlcmod":     {"DSQL005": {onlyModule: []string{"shards.sql:4"}, why: root}},
		"txmod":       {"DSQL005": {onlyModule: []string{"store.go:54", "store.go:98"}, onlyVet: []string{"store.go:125"}, why: untraced + "; " + crossImpl + "; " + exported}},
		"retryfixmod": {},
		"crossmod":    {},
		"sentinelmod": {},
	}
	for _, dir := range slices.Sorted(maps.Keys(known)) {
		t.Run(dir, func(t *testing.T) {
			fset, module := runModule(t, "testdata/"+dir)
			vfset, vet, _ := runPackages(t, "testdata/"+dir)
			for _, rule := range []string{"DSQL003", "DSQL004", "DSQL005"} {
				m, v := locksOf(fset, module, rule), locksOf(vfset, vet, rule)
				got := diff{onlyModule: minus(m, v), onlyVet: minus(v, m)}
				want := known[dir][rule]
				if !slices.Equal(got.onlyModule, want.onlyModule) || !slices.Equal(got.onlyVet, want.onlyVet) {
					t.Errorf("%s: only dsqllint %v (want %v), only go vet %v (want %v; %s)", rule, got.onlyModule, want.onlyModule, got.onlyVet, want.onlyVet, want.why)
				}
				if len(m) > 0 && len(minus(m, got.onlyModule)) == 0 && rule == "DSQL005" && dir != "noretrymod" && dir != "ormmod" {
					t.Errorf("%s: go vet names none of dsqllint's %v", rule, m)
				}
			}
		})
	}
}

// minus returns the elements of a not in b.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// TestSentinelRetry: a retry loop that tests for the error an error
// translation layer makes of a serialization failure (errors.Is(err,
// sqlerr.ErrConflict()), sqlerr.Classify(err) != sqlerr.ErrAborted)
// retries on 40001, its package never spelling the code; one that tests
// for a not-found or a duplicate error does not.
func TestSentinelRetry(t *testing.T) {
	analysistest.Run(t, "testdata/sentinelmod", analyzer.New(), "./...")
}

// TestFactsAcrossPackages: under a driver that runs one package at a
// time, the lock a package runs on the transaction it is handed is
// reported where a caller in another package begins that transaction
// outside any retry, naming the lock, and is quiet where a retry helper of
// a third package re-runs the transaction.
func TestFactsAcrossPackages(t *testing.T) {
	analysistest.Run(t, "testdata/crossmod", analyzer.New(), "./...")
	fset, diags := runModule(t, "testdata/crossmod") // and the module stage, which reports each lock at the lock
	var held []analysis.Diagnostic
	for _, d := range diags {
		if p := fset.Position(d.Pos); filepathBase(p.Filename) == "svc.go" {
			held = append(held, d)
		}
	}
	if len(held) > 0 {
		t.Errorf("module stage: %d findings in svc.go, whose locks all run inside retries: first %s: %s", len(held), fset.Position(held[0].Pos), held[0].Message)
	}
}
