package analyzer_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/dsqllint/dsqllint/analyzer"
)

// TestHostileInput runs the analyzer over strings built to hurt a parser:
// none may panic or hang the run, and the ordinary query after them is
// still reported.
func TestHostileInput(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "src", "hostile")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	hostile := []string{
		"SELECT '" + strings.Repeat("x", 1<<20) + "' FROM t FOR SHARE",                                // 1 MiB
		"SELECT " + strings.Repeat("(", 3000) + "1" + strings.Repeat(")", 3000) + " FROM t FOR SHARE", // deep nesting
		strings.Repeat("SELECT a FROM t WHERE id = $1 FOR UPDATE; ", 5000),                            // many statements
		"SELECT \xff\xfe FROM t WHERE id = $1 FOR SHARE",                                              // invalid UTF-8
		"SELECT \x00 FROM t WHERE id = $1 FOR SHARE",                                                  // NUL
		"SELECT 'unterminated FROM t FOR SHARE",
		"SELECT \"unterminated FROM t FOR SHARE",
		"SELECT /* unterminated FROM t FOR SHARE",
		"SELECT $$ unterminated FROM t FOR SHARE",
		"SELECT $tag$ body $tag$ FROM t WHERE ? ? ? :: @ % FOR",
		strings.Repeat("?", 10000),
		strings.Repeat("SELECT ", 20000),
	}
	var b strings.Builder
	b.WriteString("package hostile\n\nvar inputs = []string{\n")
	for _, h := range hostile {
		b.WriteString("\t" + strconv.Quote(h) + ",\n")
	}
	b.WriteString("}\n\nconst ordinary = \"SELECT range_id FROM shards WHERE shard_id = $1 FOR SHARE\" // want `DSQL001`\n")
	if err := os.WriteFile(filepath.Join(pkg, "hostile.go"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, analyzer.New(), "hostile")
}
