package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"

	"github.com/dsqllint/dsqllint/analyzer"
	"github.com/dsqllint/dsqllint/config"
	"github.com/dsqllint/dsqllint/gosql"
	"github.com/dsqllint/dsqllint/modconf"
	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/txflow"
)

// Exit statuses.
const (
	exitClean    = 0
	exitFailure  = 1
	exitFindings = 3
)

// options are the driver's own flags.
type options struct {
	json, fix, diff, tests bool
	timing                 bool
	context                int
	format                 string
	failOn                 failLevel
	baseline, writeBase    string
	cpuProfile, memProfile string
	tags                   string
}

func run(a *analysis.Analyzer, args []string) int {
	fs := flag.NewFlagSet("dsqllint", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: dsqllint [flags] PACKAGES... | FILE.sql|DIR...\n\n%s\n\nFlags:\n", strings.SplitN(a.Doc, "\n\n", 2)[0])
		fs.PrintDefaults()
	}
	a.Flags.VisitAll(func(f *flag.Flag) { fs.Var(f.Value, f.Name, f.Usage) })
	o := options{failOn: failLevel(rules.Warning)}
	fs.BoolVar(&o.json, "json", false, "emit JSON output (the x/tools JSON tree); exit status 0 even with findings")
	fs.StringVar(&o.format, "format", "text", "report `FORMATS`, comma-separated, each optionally to a file (sarif:out.sarif): text (stderr), json, sarif, github, markdown (stdout)")
	fs.Var(&o.failOn, "fail-on", "exit 3 for findings of this `severity` (warning or error) and above (default warning)")
	fs.StringVar(&o.baseline, "baseline", "", "report only findings not recorded in this baseline `FILE`")
	fs.StringVar(&o.writeBase, "write-baseline", "", "record every current finding in this baseline `FILE` and report none")
	fs.IntVar(&o.context, "c", -1, "display offending line with this many lines of context")
	fs.BoolVar(&o.fix, "fix", false, "apply all suggested fixes")
	fs.BoolVar(&o.diff, "diff", false, "with -fix, print the changes as a unified diff instead of applying them")
	fs.BoolVar(&o.tests, "test", true, "also check test files")
	fs.StringVar(&o.tags, "tags", "", "comma-separated build `tags` to load the packages with, as go build -tags (a store built only with -tags postgres)")
	fs.BoolVar(&o.timing, "timing", false, "print on stderr the time spent loading packages and analysing them, and the slowest packages")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to `FILE`")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a heap profile at the end of the run to `FILE`")
	why := fs.String("why", "", "print why each lock on `FILE:LINE` is reported or not by DSQL005 (the chain the analysis followed from the lock to its transaction's Begin and the retries around it), and each write there by DSQL003 (the fence it loses or bypasses, or the fences it looked for and did not find); and exit")
	explain := fs.String("explain", "", "print the page of rule `ID` (DSQL001): what fails on Aurora DSQL, why, the fix, how to suppress it; and exit")
	version := fs.Bool("version", false, "print dsqllint's version and the newest Aurora DSQL feature its rules know, and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitClean
		}
		return exitFailure
	}
	if *version {
		fmt.Println(versionLine())
		return exitClean
	}
	if *explain != "" {
		return explainRule(*explain)
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitFailure
	}
	outs, err := parseOutputs(o.format)
	if err == nil && o.json {
		if flagSet(fs, "format") {
			err = errors.New("-json and -format are exclusive; -format=json writes the same tree")
		}
		outs = []output{{format: "json"}}
	}
	if err == nil && o.baseline != "" && o.writeBase != "" {
		err = errors.New("-baseline and -write-baseline are exclusive")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "dsqllint: %v\n", err)
		return exitFailure
	}

	if !o.fix && !slices.ContainsFunc(outs, func(out output) bool { return out.format == "json" || out.format == "sarif" }) {
		analyzer.WithoutFixes(a) // no output prints a fix's edits
	}
	stop, err := startProfiles(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "dsqllint: %v\n", err)
		return exitFailure
	}
	defer stop()

	var res *result
	var code int
	if *why != "" {
		at, err := parseWhy(*why)
		if err != nil {
			fmt.Fprintf(os.Stderr, "dsqllint: %v\n", err)
			return exitFailure
		}
		analyzer.Explaining(a)
		if res, _, code = checkPackages(a, fs.Args(), o.tests, o.tags, false); res == nil {
			return exitFailure
		}
		if explainLocks(os.Stdout, res, at)+explainWrites(os.Stdout, res, at) == 0 {
			if !at.loaded(res.fset) {
				fmt.Fprintf(os.Stderr, "dsqllint: %s is in none of the packages %s as loaded (a build constraint may leave it out: -tags)\n", at.file, strings.Join(fs.Args(), " "))
				return exitFailure
			}
			fmt.Fprintf(os.Stderr, "dsqllint: no FOR UPDATE, read-modify-write or write of a row on %s among the packages %s\n", *why, strings.Join(fs.Args(), " "))
			return exitFailure
		}
		return code
	}
	// -fix applies the fixes that do not overlap another; those left, and
	// those the fixed code calls for (a lock DSQL001 made FOR UPDATE now
	// wants DSQL005's retry), are applied in another round.
	for round := 1; ; round++ {
		if round > 1 && !sqlMode(fs.Args()) {
			if err := loadable(fs.Args(), o.tags); err != nil {
				// A fix imported dsqllint's runtime, and go.mod wants
				// go mod tidy first: what round 1 did stands.
				fmt.Fprintf(os.Stderr, "dsqllint: the fixed packages do not load (%v): run go mod tidy, then dsqllint -fix again\n", err)
				return code
			}
		}
		if sqlMode(fs.Args()) {
			res, code = checkSQL(a, fs.Args())
		} else {
			res, _, code = checkPackages(a, fs.Args(), o.tests, o.tags, o.timing)
		}
		if res == nil {
			return exitFailure
		}
		code = report(res, outs, o, code)
		if !o.fix || o.diff || res.fixesApplied == 0 || round == maxFixRounds {
			if res.fixesLeft > 0 {
				fmt.Fprintf(os.Stderr, "dsqllint: %d fixes overlap others and were not applied: run dsqllint -fix again\n", res.fixesLeft)
			}
			return code
		}
	}
}

// persistence reports packages of which at least a quarter reach a
// database package: persistence code, whose analysis allocates.
func persistence(pkgs []*packages.Package) bool {
	n := 0
	for _, p := range pkgs {
		if gosql.ReachesDB(p.Types) {
			n++
		}
	}
	return 4*n >= len(pkgs)
}

// buildFlags are the go command's flags for -tags.
func buildFlags(tags string) []string {
	if tags == "" {
		return nil
	}
	return []string{"-tags=" + tags}
}

// maxFixRounds bounds how many times -fix analyses and fixes again.
const maxFixRounds = 3

// loadable reports why the packages do not load, or nil.
func loadable(patterns []string, tags string) error {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName, BuildFlags: buildFlags(tags)}, workspacePatterns(patterns)...)
	switch {
	case err != nil:
		return err
	case len(pkgs) == 0:
		return fmt.Errorf("%s matched no packages", strings.Join(patterns, " "))
	}
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			return p.Errors[0]
		}
	}
	return nil
}

// flagSet reports whether the named flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// report is the one path from a result to the user, in both modes:
// baseline, fixes, output formats and the exit status. code is the status
// so far: exitFailure when something failed to load or analyse.
func report(res *result, outs []output, o options, code int) int {
	res.root = repoRoot()
	fs := res.findings()
	if o.writeBase != "" {
		if err := writeBaseline(o.writeBase, fs); err != nil {
			fmt.Fprintf(os.Stderr, "dsqllint: %v\n", err)
			return exitFailure
		}
		fmt.Fprintf(os.Stderr, "dsqllint: recorded %d findings in %s\n", len(fs), o.writeBase)
		return code
	}
	if o.baseline != "" {
		b, err := readBaseline(o.baseline)
		if err != nil {
			fmt.Fprintf(os.Stderr, "dsqllint: %v\n", err)
			return exitFailure
		}
		fs, res.known, res.stale = b.filter(fs)
		res.baselined = true
		res.keep(fs)
		if known, stale := len(res.known), res.stale; known > 0 || stale > 0 {
			fmt.Fprintf(os.Stderr, "dsqllint: %d findings matched the baseline %s", known, o.baseline)
			if stale > 0 {
				fmt.Fprintf(os.Stderr, "; %d recorded there no longer occur (shrink it with -write-baseline)", stale)
			}
			fmt.Fprintln(os.Stderr)
		}
	}
	if o.fix {
		fixCode, applied, left := applyFixes(res.fset, fs, o.diff)
		res.fixesApplied, res.fixesLeft = applied, left
		return max(code, fixCode)
	}
	for _, out := range outs {
		if err := out.write(res, fs, o.context); err != nil {
			fmt.Fprintf(os.Stderr, "dsqllint: %v\n", err)
			code = exitFailure
		}
	}
	if o.json {
		return code // the x/tools convention: -json exits 0 with findings
	}
	if code == exitClean {
		for _, f := range fs {
			if f.severity() >= rules.Severity(o.failOn) {
				return exitFindings
			}
		}
	}
	return code
}

// checkPackages loads and analyses Go packages. The graph is returned for
// tests that compare output with x/tools' own printers.
func checkPackages(a *analysis.Analyzer, patterns []string, tests bool, tags string, timing bool) (*result, *checker.Graph, int) {
	// NeedExportFile costs no more (go list -export runs for the types of
	// dependencies): analyseHelpers reads a helper's imports from it.
	analyzer.ModuleStage(a) // the module stage below joins every package
	fset, wp := token.NewFileSet(), workspacePatterns(patterns)
	start := time.Now()
	// While go list runs: the module's settings and schema, which the
	// first package's analysis needs, and the files it will parse.
	go analyzer.Preload(a, firstDir(patterns))
	pf := startPrefetch(fset, wp, tests, tags)
	cfg := &packages.Config{Mode: packages.LoadSyntax | packages.NeedModule | packages.NeedExportFile, Tests: tests, Fset: fset,
		ParseFile: pf.parseFile, BuildFlags: buildFlags(tags)}
	pkgs, err := packages.Load(cfg, wp...)
	pf.done()
	loaded := time.Since(start)
	if err == nil && len(pkgs) == 0 {
		err = fmt.Errorf("%s matched no packages", strings.Join(patterns, " "))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "dsqllint: %v\n", err)
		return nil, nil, exitFailure
	}
	code := exitClean
	if packages.PrintErrors(pkgs) > 0 {
		code = exitFailure
	}
	// The helpers are read and analysed while the collection below marks
	// the heap: neither needs the other, and each leaves a core idle.
	helpers := make(chan []*txflow.Summary, 1)
	go func() { helpers <- analyseHelpers(a, cfg, pkgs) }()
	if persistence(pkgs) {
		// Where a quarter of the packages or more reach a database, the
		// analysis allocates in proportion to them. Elsewhere (the
		// standard library) a collection would only cost time.
		analysisHeap()
	}
	foreign := <-helpers
	graph, err := checker.Analyze([]*analysis.Analyzer{a}, pkgs, nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "dsqllint: %v\n", err)
		return nil, nil, exitFailure
	}
	res := &result{analyzer: a.Name, errs: map[string]error{}}
	var sums []*txflow.Summary
	pkgID := map[string]string{} // package path → the ID module findings go under
	for act := range graph.All() {
		if act.Err != nil {
			fmt.Fprintf(os.Stderr, "dsqllint: %s: %v\n", act.Package.PkgPath, act.Err)
			res.errs[act.Package.ID] = act.Err
			code = exitFailure
		}
		if !act.IsRoot {
			continue
		}
		res.fset = act.Package.Fset
		for _, d := range act.Diagnostics {
			res.diags = append(res.diags, diag{pkg: act.Package.ID, Diagnostic: d})
		}
		if s, ok := act.Result.(*txflow.Summary); ok && s != nil {
			sums = append(sums, s)
			if _, ok := pkgID[s.Pkg]; !ok || act.Package.ID == act.Package.PkgPath {
				pkgID[s.Pkg] = act.Package.ID
			}
		}
	}
	// The module stage: what no single package shows, and the package
	// findings it shows wrong.
	if res.fset != nil {
		m := txflow.Join(res.fset, append(sums, foreign...))
		res.decisions = m.Decisions()
		res.writes = m.WriteDecisions()
		res.diags = txflow.Merge(m, res.diags,
			func(d diag) analysis.Diagnostic { return d.Diagnostic },
			func(d diag, ad analysis.Diagnostic) diag { d.Diagnostic = ad; return d },
			func(f txflow.Finding) diag { return diag{pkg: pkgID[f.Pkg], Diagnostic: f.Diagnostic} })
	}
	if res.fset == nil {
		res.fset = token.NewFileSet()
	}
	if timing {
		printTiming(graph, loaded, time.Since(start)-loaded)
	}
	return res, graph, code
}

// dirPattern splits a pattern that names a directory (".", "./dir",
// "../dir", an absolute path), with "/..." for its tree, from an import
// path pattern (ok false).
func dirPattern(p string) (dir string, tree, ok bool) {
	dir, tree = strings.CutSuffix(p, "/...")
	return dir, tree, dir == "." || strings.HasPrefix(dir, "./") || strings.HasPrefix(dir, "../") || filepath.IsAbs(dir)
}

// firstDir is the directory of the first directory pattern (./..., ./dir),
// else the current one: where the module linted most likely is.
func firstDir(patterns []string) string {
	for _, p := range patterns {
		if dir, _, ok := dirPattern(p); ok {
			return dir
		}
	}
	return "."
}

// parseSource parses a file of the packages linted. No pass reads the
// syntactic objects go/parser resolves by default (go/types resolves
// every identifier): skipping them saves their memory for the whole run.
func parseSource(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
	return parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
}

// analyseHelpers analyses, before the packages linted, the packages
// outside them whose source decides a verdict in them (modconf.Helper): a
// retry or transaction helper in a module a replace directive points at,
// in a library, in a package of the module not named. As go vet does for
// their facts, their summaries join the module stage's, marked foreign:
// nothing is reported in them.
func analyseHelpers(a *analysis.Analyzer, cfg *packages.Config, pkgs []*packages.Package) []*txflow.Summary {
	linted, imported := map[string]bool{}, map[string]bool{}
	for _, p := range pkgs {
		linted[p.PkgPath] = true
		for path := range p.Imports {
			imported[path] = true
		}
	}
	// A package is read only when a linted package calls one of its
	// functions that can decide a verdict (modconf.HelperCall): reading
	// every imported package of the module first cost more than the
	// whole helper stage on Temporal's persistence tree.
	outside := map[string]*packages.Package{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if !linted[p.PkgPath] && imported[p.PkgPath] && p.Module != nil && !leftOut(p.PkgPath) {
			outside[p.PkgPath] = p
		}
	})
	called := map[string]*packages.Package{}
	for _, p := range pkgs {
		for _, obj := range p.TypesInfo.Uses {
			fn, ok := obj.(*types.Func)
			if !ok || fn.Pkg() == nil || outside[fn.Pkg().Path()] == nil || called[fn.Pkg().Path()] != nil || !modconf.HelperCall(fn) {
				continue
			}
			called[fn.Pkg().Path()] = outside[fn.Pkg().Path()]
		}
	}
	var hpkgs []*packages.Package
	read := map[string]bool{}
	load := func(p *packages.Package) {
		if read[p.PkgPath] || linted[p.PkgPath] {
			return
		}
		read[p.PkgPath] = true
		if hp := fromSource(cfg.Fset, p); hp != nil {
			hpkgs = append(hpkgs, hp)
		}
	}
	for _, path := range slices.Sorted(maps.Keys(called)) {
		p := called[path]
		if modconf.Helper(p.GoFiles, true) {
			load(p)
			continue
		}
		// A retry helper may leave the check to its module's error
		// translation layer (Ory's popx tests for what sqlcon makes of a
		// 40001): read both, the layer for what its 40001 becomes.
		if layers := translators(p); len(layers) > 0 {
			load(p)
			for _, l := range layers {
				load(l)
			}
		}
	}
	if len(hpkgs) == 0 {
		return nil
	}
	graph, err := checker.Analyze([]*analysis.Analyzer{a}, hpkgs, nil)
	if err != nil {
		return nil
	}
	var sums []*txflow.Summary
	var helpers []string
	for act := range graph.All() {
		if s, ok := act.Result.(*txflow.Summary); ok && s != nil && act.IsRoot && act.Err == nil && !s.Empty() {
			s.Foreign = true // its fences and writes are left out of the join
			sums = append(sums, s)
			helpers = append(helpers, s.Pkg)
		}
	}
	analyzer.Helpers(a, helpers)
	return sums
}

// translators returns the imports of a package, of its own module, whose
// source checks for a serialization failure (modconf.Helper) and whose
// errors the package tests for: a line of its source holds errors.Is and
// the import's name (errors.Is(sqlcon.HandleError(err),
// sqlcon.ErrConcurrentUpdate())). Any import of the module would do
// otherwise: on Temporal's persistence tree every package imports the
// one with its error predicates.
func translators(p *packages.Package) []*packages.Package {
	if p.Module == nil {
		return nil
	}
	var tests [][]byte // the lines that call errors.Is
	for _, name := range p.GoFiles {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		for line := range bytes.Lines(data) {
			if bytes.Contains(line, []byte("errors.Is(")) {
				tests = append(tests, line)
			}
		}
	}
	if len(tests) == 0 {
		return nil
	}
	var out []*packages.Package
	for _, path := range slices.Sorted(maps.Keys(p.Imports)) {
		imp := p.Imports[path]
		if imp.Module == nil || imp.Module.Path != p.Module.Path || imp.Name == "" {
			continue
		}
		named := slices.ContainsFunc(tests, func(l []byte) bool { return bytes.Contains(l, []byte(imp.Name+".")) })
		if named && modconf.Helper(imp.GoFiles, true) {
			out = append(out, imp)
		}
	}
	return out
}

// fromSource type-checks from its files a package the load read from
// export data, its imports resolved to the packages the load already
// has: a second go list of its dependencies cost half a second on
// Temporal's persistence tree. It returns nil for a package it cannot
// check alone (cgo, a type error): what helps the packages linted is a
// bonus.
func fromSource(fset *token.FileSet, p *packages.Package) *packages.Package {
	if len(p.GoFiles) == 0 || !slices.Equal(p.GoFiles, p.CompiledGoFiles) {
		return nil
	}
	files := make([]*ast.File, 0, len(p.GoFiles))
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil
		}
		files = append(files, f)
	}
	info := &types.Info{
		Types:        map[ast.Expr]types.TypeAndValue{},
		Instances:    map[*ast.Ident]types.Instance{},
		Defs:         map[*ast.Ident]types.Object{},
		Uses:         map[*ast.Ident]types.Object{},
		Implicits:    map[ast.Node]types.Object{},
		Selections:   map[*ast.SelectorExpr]*types.Selection{},
		Scopes:       map[ast.Node]*types.Scope{},
		FileVersions: map[*ast.File]string{},
	}
	conf := types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) { return complete(fset, p.Imports[path]) }),
		Sizes:    p.TypesSizes,
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		conf.GoVersion = "go" + p.Module.GoVersion
	}
	pkg, err := conf.Check(p.PkgPath, fset, files, info)
	if err != nil {
		return nil
	}
	return &packages.Package{ID: p.ID, Name: p.Name, PkgPath: p.PkgPath, Dir: p.Dir, GoFiles: p.GoFiles, CompiledGoFiles: p.CompiledGoFiles,
		OtherFiles: p.OtherFiles, EmbedFiles: p.EmbedFiles, Imports: p.Imports, Module: p.Module,
		Types: pkg, Fset: fset, Syntax: files, TypesInfo: info, TypesSizes: p.TypesSizes}
}

// complete returns an import's types, read whole from its export data
// when the load has only what the packages linted mention of it (the
// load's incomplete package, completed in place, as go/packages itself
// does, so that every package of the load keeps seeing one package).
func complete(fset *token.FileSet, imp *packages.Package) (*types.Package, error) {
	switch {
	case imp == nil || imp.Types == nil:
		return nil, errors.New("not among the package's imports")
	case imp.Types.Complete():
		return imp.Types, nil
	case imp.ExportFile == "":
		return nil, fmt.Errorf("no export data for %s", imp.PkgPath)
	}
	f, err := os.Open(imp.ExportFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := gcexportdata.NewReader(f)
	if err != nil {
		return nil, err
	}
	view := map[string]*types.Package{}
	packages.Visit([]*packages.Package{imp}, func(p *packages.Package) bool {
		if _, seen := view[p.PkgPath]; seen || p.Types == nil {
			return false
		}
		view[p.PkgPath] = p.Types
		return true
	}, nil)
	return gcexportdata.Read(r, fset, view, imp.PkgPath)
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// leftOut reports a package in a directory `./...` leaves out on
// purpose — testdata, or a name starting with "." or "_" (generated code
// such as .gen/): fixtures and generated stubs, no helper.
func leftOut(path string) bool {
	for _, elem := range strings.Split(path, "/") {
		if elem == "testdata" || strings.HasPrefix(elem, ".") || strings.HasPrefix(elem, "_") {
			return true
		}
	}
	return false
}

// workspacePatterns rewrites a `dir/...` pattern whose directory is the
// root of a go.work, or holds modules of one but is itself in none of them
// (where the go command matches nothing), into one pattern per module
// below it, so that `dsqllint ./...` at the root of a workspace lints all
// its modules, joined in one module stage — River's layout, a module at
// the root and its drivers' modules below, included.
func workspacePatterns(patterns []string) []string {
	var out []string
	var w *config.Workspace
	for _, p := range patterns {
		dir, tree, ok := dirPattern(p)
		if !tree || !ok {
			out = append(out, p)
			continue
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			out = append(out, p)
			continue
		}
		if w == nil {
			if w = config.FindWorkspace(abs); w == nil {
				return patterns
			}
		}
		if w.Has(abs) && abs != filepath.Clean(w.Dir) {
			out = append(out, p) // a module's own tree: its packages only
			continue
		}
		n := len(out)
		for _, m := range w.Modules {
			if rel, err := filepath.Rel(abs, m.Dir); err == nil && filepath.IsLocal(rel) {
				target := filepath.Join(dir, rel)
				if !filepath.IsAbs(target) && !strings.HasPrefix(target, "..") {
					target = "." + string(filepath.Separator) + target
				}
				out = append(out, filepath.ToSlash(target)+"/...")
			}
		}
		if len(out) == n {
			out = append(out, p) // no module below: let the go command say so
		}
	}
	return out
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

// sqlPackage is the package ID plain .sql files are reported under in the
// JSON tree.
const sqlPackage = "sqlfiles"

// checkSQL lints plain SQL files with the same rules as package mode.
func checkSQL(a *analysis.Analyzer, args []string) (*result, int) {
	var files []string
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil {
			fmt.Fprintf(os.Stderr, "dsqllint: %v\n", err)
			return nil, exitFailure
		}
		if st.IsDir() {
			sqlFiles, _ := dirFiles(arg)
			files = append(files, sqlFiles...)
		} else {
			files = append(files, arg)
		}
	}
	res := &result{fset: token.NewFileSet(), analyzer: a.Name, errs: map[string]error{}}
	diags, err := analyzer.CheckSQLFiles(a, res.fset, files)
	if err != nil {
		fmt.Fprintf(os.Stderr, "dsqllint: %v\n", err)
		return nil, exitFailure
	}
	for _, d := range diags {
		res.diags = append(res.diags, diag{pkg: sqlPackage, Diagnostic: d})
	}
	return res, exitClean
}

// writeSameMode replaces a file's content, keeping its permissions.
func writeSameMode(name string, data []byte) error {
	st, err := os.Stat(name)
	if err != nil {
		return err
	}
	return os.WriteFile(name, data, st.Mode().Perm())
}
