package main_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsqllint/dsqllint/rules"
)

var update = flag.Bool("update", false, "rewrite the golden files of the report format tests")

// fixtureRepo copies testdata/report into a fresh git work tree: the
// module svc/ lies one directory below the repository root, so that
// repository-relative paths differ from paths relative to the module.
// It returns the repository root and the module directory.
func fixtureRepo(t *testing.T, git bool) (root, svc string) {
	t.Helper()
	root = t.TempDir()
	copyTree(t, "testdata/report", root)
	svc = filepath.Join(root, "svc")
	if err := os.Rename(filepath.Join(svc, "go.mod.txt"), filepath.Join(svc, "go.mod")); err != nil {
		t.Fatal(err)
	}
	if git {
		if out, code := run(t, root, "git", "init", "-q"); code != 0 {
			t.Fatalf("git init: %s", out)
		}
	}
	return root, svc
}

// runSplit is run with standard output and standard error apart.
func runSplit(t *testing.T, dir string, name string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return o.String(), e.String(), 0
	case errors.As(err, &exit):
		return o.String(), e.String(), exit.ExitCode()
	}
	t.Fatalf("%s %v: %v", name, args, err)
	return "", "", -1
}

// golden compares got with the golden file testdata/report/NAME, or
// rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "report", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -run %s -update rewrites it)\ngot:\n%s\nwant:\n%s", path, t.Name(), got, want)
	}
}

func TestGitHubFormat(t *testing.T) {
	// Inside a git work tree, paths are relative to its root wherever
	// dsqllint runs, in package mode and plain .sql mode alike.
	_, svc := fixtureRepo(t, true)
	out, code := run(t, svc, bin, "-format=github", "./...")
	if code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
	golden(t, "github.golden", out)

	out, code = run(t, filepath.Join(svc, "queries"), bin, "-format=github", ".")
	if code != 3 || !strings.HasPrefix(out, "::error file=svc/queries/orders.sql,line=4,col=1,title=DSQL001 share-lock::DSQL001 share-lock: FOR SHARE") {
		t.Errorf(".sql mode: exit %d\n%s", code, out)
	}

	// Outside any git work tree, paths are relative to the current directory.
	_, svc = fixtureRepo(t, false)
	out, _ = run(t, svc, bin, "-format=github", "./...")
	if !strings.Contains(out, "::warning file=store.go,line=15,col=71,title=DSQL003 unfenced-write::DSQL003 unfenced-write: ") {
		t.Errorf("without git, paths are not relative to the current directory:\n%s", out)
	}
}

// sarifDoc is the part of a SARIF log the checks read.
type sarifDoc struct {
	Version *string `json:"version"`
	Runs    []struct {
		ColumnKind string `json:"columnKind"`
		Tool       *struct {
			Driver *struct {
				Name  string `json:"name"`
				Rules []struct {
					ID               string `json:"id"`
					Name             string `json:"name"`
					HelpURI          string `json:"helpUri"`
					ShortDescription *struct {
						Text string `json:"text"`
					} `json:"shortDescription"`
					DefaultConfiguration *struct {
						Level string `json:"level"`
					} `json:"defaultConfiguration"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []sarifResult `json:"results"`
	} `json:"runs"`
}

type sarifResult struct {
	RuleID  string `json:"ruleId"`
	Level   string `json:"level"`
	Message *struct {
		Text *string `json:"text"`
	} `json:"message"`
	Locations []struct {
		PhysicalLocation *struct {
			ArtifactLocation *struct {
				URI       string `json:"uri"`
				URIBaseID string `json:"uriBaseId"`
			} `json:"artifactLocation"`
			Region *sarifRegion `json:"region"`
		} `json:"physicalLocation"`
	} `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Fixes               []struct {
		Description *struct {
			Text string `json:"text"`
		} `json:"description"`
		ArtifactChanges []struct {
			ArtifactLocation *struct {
				URI string `json:"uri"`
			} `json:"artifactLocation"`
			Replacements []struct {
				DeletedRegion   *sarifRegion `json:"deletedRegion"`
				InsertedContent *struct {
					Text string `json:"text"`
				} `json:"insertedContent"`
			} `json:"replacements"`
		} `json:"artifactChanges"`
	} `json:"fixes"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

func (r sarifRegion) String() string {
	return fmt.Sprintf("%d:%d-%d:%d", r.StartLine, r.StartColumn, r.EndLine, r.EndColumn)
}

// validSARIF parses out as SARIF 2.1.0 and checks what the specification
// requires of the parts dsqllint writes (sarifLog §3.13, run §3.14,
// toolComponent §3.19, reportingDescriptor §3.49, result §3.27, message
// §3.11, physicalLocation §3.29, artifactLocation §3.4, region §3.30, fix
// §3.55), plus what GitHub code scanning needs: a known ruleId and
// repository-relative URIs.
func validSARIF(t *testing.T, out string) sarifDoc {
	t.Helper()
	var doc sarifDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.Version == nil || *doc.Version != "2.1.0" {
		t.Errorf("version %v, want 2.1.0", doc.Version)
	}
	if len(doc.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(doc.Runs))
	}
	r := doc.Runs[0]
	if r.Tool == nil || r.Tool.Driver == nil || r.Tool.Driver.Name == "" {
		t.Fatal("runs[0].tool.driver.name is missing")
	}
	if r.ColumnKind != "utf16CodeUnits" && r.ColumnKind != "unicodeCodePoints" {
		t.Errorf("columnKind %q", r.ColumnKind)
	}
	levels := map[string]bool{"none": true, "note": true, "warning": true, "error": true}
	ruleIDs := map[string]bool{}
	for i, rule := range r.Tool.Driver.Rules {
		if rule.ID == "" || ruleIDs[rule.ID] {
			t.Errorf("rules[%d]: missing or duplicate id %q", i, rule.ID)
		}
		ruleIDs[rule.ID] = true
		if rule.ShortDescription == nil || rule.ShortDescription.Text == "" {
			t.Errorf("rule %s: no shortDescription.text", rule.ID)
		}
		if rule.DefaultConfiguration == nil || !levels[rule.DefaultConfiguration.Level] {
			t.Errorf("rule %s: defaultConfiguration.level %v", rule.ID, rule.DefaultConfiguration)
		}
	}
	for _, rule := range rules.All() {
		if !ruleIDs[rule.ID] {
			t.Errorf("driver lacks rule %s", rule.ID)
		}
	}
	for i, res := range r.Results {
		if res.Message == nil || res.Message.Text == nil || *res.Message.Text == "" {
			t.Errorf("results[%d]: message.text is missing", i)
		}
		if !ruleIDs[res.RuleID] {
			t.Errorf("results[%d]: ruleId %q is not in tool.driver.rules", i, res.RuleID)
		}
		if !levels[res.Level] {
			t.Errorf("results[%d]: level %q", i, res.Level)
		}
		if len(res.Locations) == 0 {
			t.Errorf("results[%d]: no locations", i)
		}
		for _, loc := range res.Locations {
			pl := loc.PhysicalLocation
			if pl == nil || pl.ArtifactLocation == nil || pl.ArtifactLocation.URI == "" || pl.Region == nil {
				t.Errorf("results[%d]: physicalLocation lacks artifactLocation.uri or region", i)
				continue
			}
			if u := pl.ArtifactLocation.URI; strings.HasPrefix(u, "/") || strings.Contains(u, "://") || strings.HasPrefix(u, "..") {
				t.Errorf("results[%d]: artifact URI %q is not repository-relative", i, u)
			}
			checkRegion(t, fmt.Sprintf("results[%d]", i), *pl.Region)
		}
		for _, fix := range res.Fixes {
			if fix.Description == nil || len(fix.ArtifactChanges) == 0 {
				t.Errorf("results[%d]: fix without description or artifactChanges", i)
			}
			for _, ch := range fix.ArtifactChanges {
				if ch.ArtifactLocation == nil || ch.ArtifactLocation.URI == "" || len(ch.Replacements) == 0 {
					t.Errorf("results[%d]: artifactChange without uri or replacements", i)
				}
				for _, rep := range ch.Replacements {
					if rep.DeletedRegion == nil {
						t.Errorf("results[%d]: replacement without deletedRegion", i)
						continue
					}
					checkRegion(t, fmt.Sprintf("results[%d] fix", i), *rep.DeletedRegion)
				}
			}
		}
	}
	return doc
}

func checkRegion(t *testing.T, where string, g sarifRegion) {
	t.Helper()
	if g.StartLine < 1 || g.StartColumn < 1 || g.EndLine < g.StartLine || (g.EndLine == g.StartLine && g.EndColumn < g.StartColumn) {
		t.Errorf("%s: bad region %s", where, g)
	}
}

func TestSARIF(t *testing.T) {
	_, svc := fixtureRepo(t, true)
	out, _, code := runSplit(t, svc, bin, "-format=sarif", "./...")
	if code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
	doc := validSARIF(t, out)
	type want struct {
		rule, level, uri string
		region, fix      sarifRegion // the finding; what the fix replaces
		insert           string      // the fix's inserted text; "" for no fix
	}
	wants := []want{
		{"DSQL001", "error", "svc/queries/orders.sql", sarifRegion{4, 1, 4, 10}, sarifRegion{4, 5, 4, 10}, "UPDATE"},
		{"DSQL001", "error", "svc/store.go", sarifRegion{12, 60, 12, 69}, sarifRegion{12, 64, 12, 69}, "UPDATE"},
		{"DSQL003", "warning", "svc/store.go", sarifRegion{15, 71, 15, 76}, sarifRegion{}, ""},
		// 'héllo 🙂': é is 2 bytes but 1 UTF-16 unit, 🙂 4 bytes but 2 units.
		{"DSQL001", "error", "svc/store.go", sarifRegion{18, 67, 18, 76}, sarifRegion{18, 71, 18, 76}, "UPDATE"},
	}
	results := doc.Runs[0].Results
	if len(results) != len(wants) {
		t.Fatalf("%d results, want %d\n%s", len(results), len(wants), out)
	}
	for i, w := range wants {
		res := results[i]
		loc := res.Locations[0].PhysicalLocation
		if res.RuleID != w.rule || res.Level != w.level || loc.ArtifactLocation.URI != w.uri || *loc.Region != w.region {
			t.Errorf("results[%d] = %s %s %s %s, want %s %s %s %s", i, res.RuleID, res.Level, loc.ArtifactLocation.URI, loc.Region, w.rule, w.level, w.uri, w.region)
		}
		if loc.ArtifactLocation.URIBaseID != "%SRCROOT%" {
			t.Errorf("results[%d]: uriBaseId %q", i, loc.ArtifactLocation.URIBaseID)
		}
		if !strings.HasPrefix(*res.Message.Text, w.rule+" ") {
			t.Errorf("results[%d]: message %q does not start with the rule ID", i, *res.Message.Text)
		}
		if len(res.PartialFingerprints) == 0 {
			t.Errorf("results[%d]: no partialFingerprints", i)
		}
		switch {
		case w.insert == "" && len(res.Fixes) > 0:
			t.Errorf("results[%d]: unexpected fix", i)
		case w.insert != "":
			if len(res.Fixes) != 1 {
				t.Errorf("results[%d]: %d fixes, want 1", i, len(res.Fixes))
				continue
			}
			ch := res.Fixes[0].ArtifactChanges[0]
			rep := ch.Replacements[0]
			if ch.ArtifactLocation.URI != w.uri || rep.InsertedContent.Text != w.insert || *rep.DeletedRegion != w.fix {
				t.Errorf("results[%d]: fix replaces %s in %s with %q, want %s %s %q", i, rep.DeletedRegion, ch.ArtifactLocation.URI, rep.InsertedContent.Text, w.fix, w.uri, w.insert)
			}
		}
	}
	driver := doc.Runs[0].Tool.Driver
	for _, rule := range driver.Rules {
		r := rules.ByID(rule.ID)
		if r == nil {
			t.Errorf("driver rule %s is not in the catalogue", rule.ID)
			continue
		}
		if rule.Name != r.Name || rule.HelpURI != r.DocURL() || rule.ShortDescription.Text != r.Summary || rule.DefaultConfiguration.Level != r.Severity.String() {
			t.Errorf("driver rule %s = %+v, want the catalogue's %s, %s, %s, %s", rule.ID, rule, r.Name, r.DocURL(), r.Summary, r.Severity)
		}
	}

	// Plain .sql mode writes the same SARIF.
	out, _, code = runSplit(t, svc, bin, "-format=sarif", "queries/orders.sql")
	doc = validSARIF(t, out)
	if code != 3 || len(doc.Runs[0].Results) != 1 || doc.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI != "svc/queries/orders.sql" {
		t.Errorf(".sql mode: exit %d\n%s", code, out)
	}

	// A clean run is a valid SARIF log with every rule and no results.
	clean := module(t, "package m\n\nconst q = \"SELECT 1 FROM t WHERE id = $1\"\n")
	out, _, code = runSplit(t, clean, bin, "-format=sarif", "./...")
	doc = validSARIF(t, out)
	if code != 0 || !strings.Contains(out, `"results": []`) {
		t.Errorf("clean: exit %d\n%s", code, out)
	}
}

func TestFailOn(t *testing.T) {
	warning := module(t, "package m\n\nconst q = \"UPDATE leases SET worker_id = $1, expires_at = $2 WHERE resource_id = $3\"\n\n"+
		"const renew = \"UPDATE leases SET expires_at = $1 WHERE resource_id = $2 AND worker_id = $3\"\n\n"+
		"const claim = \"UPDATE leases SET worker_id = $1, expires_at = $2 WHERE resource_id = $3 AND expires_at < now()\"\n")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"./..."}, 3},
		{[]string{"-fail-on=warning", "./..."}, 3},
		{[]string{"-fail-on=error", "./..."}, 0},
		{[]string{"-fail-on=error", "-format=sarif", "./..."}, 0},
		{[]string{"-fail-on=error", "-format=github", "./..."}, 0},
		{[]string{"-fail-on=note", "./..."}, 1},
		{[]string{"-format=yaml", "./..."}, 1},
		{[]string{"-format=sarif,github", "./..."}, 1}, // both on stdout
		{[]string{"-json", "-format=sarif", "./..."}, 1},
		{[]string{"-baseline=a", "-write-baseline=b", "./..."}, 1},
		{[]string{"-format=sarif", "./nonexistent/..."}, 1},
		{[]string{"-json", "./..."}, 0},        // the x/tools convention
		{[]string{"-format=json", "./..."}, 3}, // the same tree, the CI gate's status
	} {
		out, code := run(t, warning, bin, tc.args...)
		if code != tc.code {
			t.Errorf("dsqllint %s: exit %d, want %d\n%s", strings.Join(tc.args, " "), code, tc.code, out)
		}
	}
	// The warning is still shown under -fail-on=error.
	if out, _ := run(t, warning, bin, "-fail-on=error", "-format=github", "./..."); !strings.HasPrefix(out, "::warning file=m.go,line=3,") {
		t.Errorf("-fail-on=error hides the warning:\n%s", out)
	}
	errorMod := module(t, shareLockSrc)
	if _, code := run(t, errorMod, bin, "-fail-on=error", "./..."); code != 3 {
		t.Errorf("an error finding under -fail-on=error: exit %d, want 3", code)
	}
}

func TestSeveralOutputs(t *testing.T) {
	_, svc := fixtureRepo(t, true)
	out, _, code := runSplit(t, svc, bin, "-format=github,sarif:report.sarif,json:report.json,text:report.txt", "./...")
	if code != 3 || strings.Count(out, "::") != 8 {
		t.Errorf("exit %d, stdout:\n%s", code, out)
	}
	data, err := os.ReadFile(filepath.Join(svc, "report.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	if doc := validSARIF(t, string(data)); len(doc.Runs[0].Results) != 4 {
		t.Errorf("report.sarif has %d results, want 4", len(doc.Runs[0].Results))
	}
	jsonOut, _, _ := runSplit(t, svc, bin, "-json", "./...")
	if data, _ := os.ReadFile(filepath.Join(svc, "report.json")); string(data) != jsonOut {
		t.Errorf("json:FILE differs from -json:\n%s\nwant:\n%s", data, jsonOut)
	}
	if data, _ := os.ReadFile(filepath.Join(svc, "report.txt")); strings.Count(string(data), ": DSQL") != 4 {
		t.Errorf("report.txt:\n%s", data)
	}
}

func TestJSONInSQLMode(t *testing.T) {
	_, svc := fixtureRepo(t, false)
	out, _, code := runSplit(t, svc, bin, "-json", "queries")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	var tree map[string]map[string][]struct {
		Category, Posn string
		Fixes          []struct {
			Message string
			Edits   []struct {
				Filename   string
				Start, End int
				New        string
			}
		} `json:"suggested_fixes"`
	}
	if err := json.Unmarshal([]byte(out), &tree); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	diags := tree["sqlfiles"]["dsqllint"]
	if len(diags) != 1 || diags[0].Posn != "queries/orders.sql:4:1" || len(diags[0].Fixes) != 1 || diags[0].Fixes[0].Edits[0].New != "UPDATE" {
		t.Errorf("JSON tree of a .sql file: %+v", tree)
	}
}

// TestMarkdownFormat: the summary for a job summary or a pull-request
// comment, alone and with a baseline that records all but one finding.
func TestMarkdownFormat(t *testing.T) {
	root, svc := fixtureRepo(t, true)
	out, code := run(t, svc, bin, "-format=markdown", "./...")
	if code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
	golden(t, "markdown.golden", out)

	base := filepath.Join(root, "baseline.json")
	if out, code := run(t, svc, bin, "-write-baseline="+base, "./..."); code != 0 {
		t.Fatalf("-write-baseline: exit %d\n%s", code, out)
	}
	store := filepath.Join(svc, "store.go")
	src, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	src = append(src, "\n// A new share lock since the baseline.\nconst readInvoice = \"SELECT total FROM invoices WHERE id = $1 FOR SHARE\"\n"...)
	if err := os.WriteFile(store, src, 0o644); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(root, "summary.md")
	if out, code := run(t, svc, bin, "-baseline="+base, "-format=text,markdown:"+md, "./..."); code != 3 {
		t.Errorf("with the baseline: exit %d, want 3\n%s", code, out)
	}
	got, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "markdown-baseline.golden", string(got))
}
