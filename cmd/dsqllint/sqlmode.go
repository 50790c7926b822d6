package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/analyzer"
)

// sqlMode reports whether the command line names .sql files or directories
// holding .sql files and no Go files: plain SQL mode.
func sqlMode(args []string) bool {
	sqlMode := false
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if strings.EqualFold(filepath.Ext(a), ".sql") {
			sqlMode = true
			continue
		}
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			sqlFiles, goFiles := dirFiles(a)
			if len(sqlFiles) > 0 && goFiles == 0 {
				sqlMode = true
			}
		}
	}
	return sqlMode
}

func dirFiles(dir string) (sqlFiles []string, goFiles int) {
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".sql":
			sqlFiles = append(sqlFiles, path)
		case ".go":
			goFiles++
		}
		return nil
	})
	sort.Strings(sqlFiles)
	return sqlFiles, goFiles
}

// runSQL lints plain SQL files with the analyzer's rules and flags, printing
// like the x/tools driver: "file:line:col: message" on stderr, or the JSON
// tree on stdout with -json.
func runSQL(a *analysis.Analyzer, args []string) int {
	fs := flag.NewFlagSet("dsqllint", flag.ContinueOnError)
	a.Flags.VisitAll(func(f *flag.Flag) { fs.Var(f.Value, f.Name, f.Usage) })
	jsonOut := fs.Bool("json", false, "emit JSON output")
	fs.Int("c", -1, "display offending line with this many lines of context (ignored for SQL files)")
	if err := fs.Parse(args); err != nil {
		return 1
	}
	var files []string
	for _, arg := range fs.Args() {
		st, err := os.Stat(arg)
		if err != nil {
			fmt.Fprintf(os.Stderr, "dsqllint: %v\n", err)
			return 1
		}
		if st.IsDir() {
			sqlFiles, _ := dirFiles(arg)
			files = append(files, sqlFiles...)
		} else {
			files = append(files, arg)
		}
	}
	fset := token.NewFileSet()
	diags, err := analyzer.CheckSQLFiles(a, fset, files)
	if err != nil {
		fmt.Fprintf(os.Stderr, "dsqllint: %v\n", err)
		return 1
	}
	if *jsonOut {
		printJSON(os.Stdout, fset, a.Name, diags)
		return 0
	}
	for _, d := range diags {
		fmt.Fprintf(os.Stderr, "%s: %s\n", fset.Position(d.Pos), d.Message)
	}
	if len(diags) > 0 {
		return 3
	}
	return 0
}

type jsonDiagnostic struct {
	Category string `json:"category,omitempty"`
	Posn     string `json:"posn"`
	End      string `json:"end"`
	Message  string `json:"message"`
}

// printJSON writes the x/tools JSON tree: {package: {analyzer: [diagnostics]}}.
func printJSON(w io.Writer, fset *token.FileSet, name string, diags []analysis.Diagnostic) {
	list := make([]jsonDiagnostic, 0, len(diags))
	for _, d := range diags {
		end := d.End
		if !end.IsValid() {
			end = d.Pos
		}
		list = append(list, jsonDiagnostic{Category: d.Category, Posn: fset.Position(d.Pos).String(), End: fset.Position(end).String(), Message: d.Message})
	}
	tree := map[string]map[string]any{}
	if len(list) > 0 {
		tree["sqlfiles"] = map[string]any{name: list}
	}
	out, _ := json.MarshalIndent(tree, "", "\t")
	fmt.Fprintf(w, "%s\n", out)
}
