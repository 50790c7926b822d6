package sqlparse

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestReservedMatchesParser compares reserved with the keyword list of the
// PostgreSQL parser that pg_query_go embeds: every keyword that is not
// UNRESERVED_KEYWORD, and no other word.
func TestReservedMatchesParser(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/pganalyze/pg_query_go/v6").Output()
	if err != nil {
		t.Fatalf("locating pg_query_go: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "parser/include/postgres/parser/kwlist.h"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	re := regexp.MustCompile(`(?m)^PG_KEYWORD\("([a-z_]+)", \w+, (\w+),`)
	all := re.FindAllStringSubmatch(string(src), -1)
	if len(all) < 400 {
		t.Fatalf("found %d keywords in kwlist.h; has its format changed?", len(all))
	}
	for _, m := range all {
		if m[2] != "UNRESERVED_KEYWORD" {
			want[m[1]] = true
		}
	}
	var missing, extra []string
	for w := range want {
		if !reserved[w] {
			missing = append(missing, w)
		}
	}
	for w := range reserved {
		if !want[w] {
			extra = append(extra, w)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing)+len(extra) > 0 {
		t.Errorf("reserved differs from kwlist.h: missing %v, not keywords there %v", missing, extra)
	}
	if !isReserved("Current_Timestamp") || isReserved("range_id") || isReserved("xmlattributes_and_more") {
		t.Error("isReserved: wrong answer for mixed case, a plain name, or a long name")
	}
}
