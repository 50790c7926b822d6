package main

import (
	"errors"
	"flag"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/dsqllint/dsqllint/analyzer"
	"github.com/dsqllint/dsqllint/fixer"
)

// options are the driver's own flags.
type options struct {
	json, fix, diff, tests bool
	context                int
}

func run(a *analysis.Analyzer, args []string) int {
	fs := flag.NewFlagSet("dsqllint", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: dsqllint [flags] PACKAGES... | FILE.sql|DIR...\n\n%s\n\nFlags:\n", strings.SplitN(a.Doc, "\n\n", 2)[0])
		fs.PrintDefaults()
	}
	a.Flags.VisitAll(func(f *flag.Flag) { fs.Var(f.Value, f.Name, f.Usage) })
	var o options
	fs.BoolVar(&o.json, "json", false, "emit JSON output (the x/tools JSON tree); exit status 0")
	fs.IntVar(&o.context, "c", -1, "display offending line with this many lines of context")
	fs.BoolVar(&o.fix, "fix", false, "apply all suggested fixes")
	fs.BoolVar(&o.diff, "diff", false, "with -fix, print the changes as a unified diff instead of applying them")
	fs.BoolVar(&o.tests, "test", true, "also check test files")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 1
	}
	if sqlMode(fs.Args()) {
		return runSQL(a, fs.Args(), o)
	}
	return runPackages(a, fs.Args(), o)
}

func runPackages(a *analysis.Analyzer, patterns []string, o options) int {
	cfg := &packages.Config{Mode: packages.LoadSyntax | packages.NeedModule, Tests: o.tests}
	pkgs, err := packages.Load(cfg, patterns...)
	if err == nil && len(pkgs) == 0 {
		err = fmt.Errorf("%s matched no packages", strings.Join(patterns, " "))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "dsqllint: %v\n", err)
		return 1
	}
	code := 0
	if packages.PrintErrors(pkgs) > 0 {
		code = 1
	}
	graph, err := checker.Analyze([]*analysis.Analyzer{a}, pkgs, nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "dsqllint: %v\n", err)
		return 1
	}
	var diags []analysis.Diagnostic
	var fset *token.FileSet
	for _, act := range graph.Roots {
		if act.Err != nil {
			fmt.Fprintf(os.Stderr, "dsqllint: %s: %v\n", act.Package.PkgPath, act.Err)
			code = 1
		}
		fset = act.Package.Fset
		diags = append(diags, act.Diagnostics...)
	}
	switch {
	case o.fix:
		return max(code, applyFixes(fset, diags, o.diff))
	case o.json:
		if err := graph.PrintJSON(os.Stdout); err != nil {
			return 1
		}
		return code
	}
	if err := graph.PrintText(os.Stderr, o.context); err != nil {
		return 1
	}
	if code == 0 && len(diags) > 0 {
		code = 3
	}
	return code
}

// sqlMode reports whether the arguments name .sql files, or directories
// holding .sql files and no Go files: plain SQL mode.
func sqlMode(args []string) bool {
	for _, a := range args {
		if strings.EqualFold(filepath.Ext(a), ".sql") {
			return true
		}
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			if sqlFiles, goFiles := dirFiles(a); len(sqlFiles) > 0 && goFiles == 0 {
				return true
			}
		}
	}
	return false
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

// runSQL lints plain SQL files with the same rules, output shapes and exit
// codes as package mode.
func runSQL(a *analysis.Analyzer, args []string, o options) int {
	var files []string
	for _, arg := range args {
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
	switch {
	case o.fix:
		return applyFixes(fset, diags, o.diff)
	case o.json:
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

// applyFixes applies the first suggested fix of every diagnostic, to Go and
// .sql files alike, or prints the diff with -diff. Diagnostics reported
// twice (a package and its test variant share files) apply once.
func applyFixes(fset *token.FileSet, diags []analysis.Diagnostic, diff bool) int {
	byFile := map[string][]fixer.Edit{}
	for _, d := range diags {
		if len(d.SuggestedFixes) == 0 {
			continue
		}
		for _, e := range d.SuggestedFixes[0].TextEdits {
			f := fset.File(e.Pos)
			byFile[f.Name()] = append(byFile[f.Name()], fixer.Edit{Start: f.Offset(e.Pos), End: f.Offset(e.End), New: string(e.NewText)})
		}
	}
	names := make([]string, 0, len(byFile))
	for name := range byFile {
		names = append(names, name)
	}
	sort.Strings(names)
	code := 0
	for _, name := range names {
		content, err := os.ReadFile(name)
		if err == nil && diff {
			var d string
			if d, err = fixer.Diff(name, content, byFile[name]); err == nil {
				fmt.Print(d)
			}
		} else if err == nil {
			var fixed []byte
			if fixed, err = fixer.Apply(content, byFile[name]); err == nil {
				err = writeSameMode(name, fixed)
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "dsqllint: fixing %s: %v\n", name, err)
			code = 1
		}
	}
	return code
}

// writeSameMode replaces a file's content, keeping its permissions.
func writeSameMode(name string, data []byte) error {
	st, err := os.Stat(name)
	if err != nil {
		return err
	}
	return os.WriteFile(name, data, st.Mode().Perm())
}
