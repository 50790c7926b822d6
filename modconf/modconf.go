// Package modconf says what is in force for a package: the defaults, its
// module's .dsqllint.yaml, the flags given on the command line (or as
// golangci-lint settings), and the module's schema and sqlc configuration,
// found and replayed once per module root; and which packages outside
// those linted are looked at at all (Library, Helper).
package modconf

import (
	"flag"
	"fmt"
	"go/token"
	"go/types"
	goversion "go/version"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/catalog"
	"github.com/dsqllint/dsqllint/config"
	"github.com/dsqllint/dsqllint/fencing"
	"github.com/dsqllint/dsqllint/rules"
	"github.com/dsqllint/dsqllint/sqlcconf"
)

// Settings is the analyzer's configuration, written only by flag parsing
// and, for each module, by its configuration file.
type Settings struct {
	Cfg        *rules.Config
	RetryFuncs FuncList
	Verbose    bool
	schema     ListFlag
	// flags records the flags set on the command line or by golangci-lint
	// settings, which override the configuration file; nil on the settings
	// made for one module.
	flags *setFlags
	// modules caches, per module root, the settings and schema in force.
	modules *modules
	// Runtime are the modules of dsqllint's retry runtime the module is or
	// requires (RuntimeModule): the fixes that import a package of one are
	// offered where the module has it, or where the dsqllint command can
	// add it (CanImportRuntime). goLine is the module's go line.
	Runtime map[string]bool
	goLine  string
	// ModulePath is the module's path, and Requires the modules its go.mod
	// requires directly.
	ModulePath string
	Requires   []string
	// Ifaces caches, per package, the module interfaces it sees
	// (summarizeImpls).
	Ifaces *sync.Map
	// File is the module's configuration file, nil when it has none.
	File *config.File
	// Root is the module root ("" when none was found).
	Root string
	// Workspace are the module paths of the go.work the module is used
	// in: their packages are joined in one module stage.
	Workspace []string
	// Sqlc are the SQL packages of the module's sqlc configurations.
	Sqlc []sqlcconf.Package
	// MigrationDirs are the directories of the module's migrations.
	MigrationDirs map[string]bool
	// otherDialect are the module's files and directories of another
	// database's SQL (catalog.Source.OtherDialect).
	otherDialect []string
	// ModuleStage says the dsqllint command joins every package's summary
	// after the packages are analysed (ModuleStage): a package then
	// leaves what crosses packages to it.
	ModuleStage bool
	// NoFixes says the driver discards suggested fixes (the dsqllint
	// command without -fix or a format that prints them): a finding's
	// fix is then not spelled out, only whether it has one.
	NoFixes bool
	// Explain says the dsqllint command answers -why: the module stage
	// keeps why it left each write alone.
	Explain bool
	// FactsOnly says the driver runs the analyzer on the package only for
	// the facts its importers read (go vet on a dependency): its
	// findings would be thrown away, so they are not looked for.
	FactsOnly bool
	// Helpers are the packages outside the module the dsqllint command
	// analysed first (Helpers), shared by every module's settings.
	Helpers *atomic.Pointer[map[string]bool]
}

// NewRoot returns the settings an analyzer's flags are bound to: each
// module's settings are derived from them (ForPackage).
func NewRoot() *Settings {
	s := NewSettings()
	s.flags = &setFlags{raw: map[string]string{}}
	s.modules = &modules{m: map[string]*module{}}
	s.Helpers = new(atomic.Pointer[map[string]bool])
	return s
}

// Loads counts the modules whose settings were loaded.
func (s *Settings) Loads() int {
	s.modules.mu.Lock()
	defer s.modules.mu.Unlock()
	return s.modules.loads
}

// NewSettings returns the default settings.
func NewSettings() *Settings {
	return &Settings{Cfg: rules.DefaultConfig(), RetryFuncs: DefaultRetryFuncs(), Ifaces: new(sync.Map)}
}

// Register binds the flags to s.
func (s *Settings) Register(fs *flag.FlagSet) {
	if s.flags != nil {
		defer fs.VisitAll(func(f *flag.Flag) { f.Value = &recorded{Value: f.Value, name: f.Name, set: s.flags} })
	}
	fs.Var(&s.Cfg.Target, "dsql-version", "target Aurora DSQL release `YYYY-MM[-DD]`; rules for features DSQL added later stay silent")
	fs.Var(&s.Cfg.FenceColumns, "fence-columns", "comma-separated version/epoch column names (`*` globs) that make a write a compare-and-swap whose result must be read (DSQL004)")
	fs.Var(&s.Cfg.OwnerColumns, "owner-columns", "comma-separated owner column names that make a write a compare-and-swap when compared with the caller (DSQL004)")
	fs.Var(&s.Cfg.StateColumns, "state-columns", "comma-separated state column names a DELETE compares as a compare-and-swap (DSQL004)")
	fs.Var(&s.Cfg.ExpiryColumns, "expiry-columns", "comma-separated lease expiry column names whose `< now()` guards a claim")
	fs.Var(ruleSet{s.Cfg}, "disable", "comma-separated rule IDs to disable (e.g. DSQL003)")
	fs.Var(&s.Cfg.MigrationTx, "migration-tx", "how the migration runner applies a .sql file: `auto` (a goose, dbmate or sql-migrate section as its tool does, in one transaction unless marked otherwise; other statements on their own), statement (each statement on its own) or file (the file, or each section, in one transaction, as golang-migrate does)")
	fs.Var(&s.RetryFuncs, "retry-funcs", "comma-separated functions (`pkg/path.Func`) that run a transaction with retries on SQLSTATE 40001")
	fs.Var(&s.schema, "schema", "comma-separated schema `paths` (files, directories of migrations, globs, a pg_dump --schema-only file) relative to the module root; default: the schema paths of sqlc.yaml, else the directories of .sql files that create tables")
	fs.BoolVar(&s.Verbose, "verbose", false, "note on stderr where the schema came from, and every SQL text skipped because it exceeds the size or nesting limits")
}

// ruleSet is the -disable flag.
type ruleSet struct{ cfg *rules.Config }

func (r ruleSet) String() string {
	if r.cfg == nil {
		return ""
	}
	var ids []string
	for id := range r.cfg.Disabled {
		ids = append(ids, id)
	}
	return strings.Join(ids, ",")
}

func (r ruleSet) Set(v string) error {
	r.cfg.Disabled = map[string]bool{}
	for _, id := range strings.Split(v, ",") {
		if id = strings.TrimSpace(strings.ToUpper(id)); id == "" {
			continue
		}
		if rules.ByID(id) == nil {
			return fmt.Errorf("unknown rule %q", id)
		}
		r.cfg.Disabled[id] = true
	}
	return nil
}

// FuncList is the -retry-funcs flag: fully qualified function names.
type FuncList struct{ ListFlag }

// Has reports whether fn is one of the list.
func (l FuncList) Has(fn *types.Func) bool {
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	name := fn.Pkg().Path() + "." + fn.Name()
	for _, f := range l.ListFlag {
		if f == name {
			return true
		}
	}
	return false
}

// DefaultRetryFuncs are the retry helpers known without configuration.
func DefaultRetryFuncs() FuncList {
	return FuncList{ListFlag{
		"github.com/dsqllint/dsqllint/runtime/occ.RunTxWithRetry", "github.com/dsqllint/dsqllint/runtime/occ.RunTxWithRetryVoid",
		"github.com/dsqllint/dsqllint/runtime/occpgx.RunTxWithRetry", "github.com/dsqllint/dsqllint/runtime/occpgx.RunTxWithRetryVoid",
		"github.com/cockroachdb/cockroach-go/v2/crdb.ExecuteTx",
		"github.com/cockroachdb/cockroach-go/v2/crdb.ExecuteTxGenericTest",
		"github.com/cockroachdb/cockroach-go/v2/crdb/crdbpgx.ExecuteTx",
		"github.com/cockroachdb/cockroach-go/v2/crdb/crdbpgxv5.ExecuteTx",
		"github.com/cockroachdb/cockroach-go/v2/crdb/crdbsqlx.ExecuteTx",
		"github.com/awslabs/aurora-dsql-connectors/go/pgx/occretry.WithRetry",
		"github.com/awslabs/aurora-dsql-connectors/go/pgx/occretry.Retry",
		// Generic retries re-run the operation on every error, 40001
		// included: cenkalti/backoff unless it returns a Permanent error,
		// avast/retry-go unless told otherwise.
		"github.com/cenkalti/backoff/v4.Retry", "github.com/cenkalti/backoff/v4.RetryNotify",
		"github.com/cenkalti/backoff/v4.RetryNotifyWithTimer", "github.com/cenkalti/backoff/v4.RetryWithData",
		"github.com/cenkalti/backoff/v4.RetryNotifyWithData", "github.com/cenkalti/backoff/v4.RetryNotifyWithTimerAndData",
		"github.com/cenkalti/backoff/v5.Retry",
		"github.com/cenkalti/backoff.Retry", "github.com/cenkalti/backoff.RetryNotify",
		"github.com/avast/retry-go/v4.Do", "github.com/avast/retry-go/v4.DoWithData", "github.com/avast/retry-go.Do",
	}}
}

// The settings in force for a package are those of its module: the
// defaults, then the module's .dsqllint.yaml, then the flags given on the
// command line (or as golangci-lint settings). The module's schema is
// found and replayed once per root and analyzer, whichever driver runs it.

// setFlags records the raw values of the flags that were set explicitly.
type setFlags struct {
	mu  sync.Mutex
	raw map[string]string
}

func (f *setFlags) get() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]string, len(f.raw))
	for k, v := range f.raw {
		out[k] = v
	}
	return out
}

// recorded wraps a flag's value to note that it was set.
type recorded struct {
	flag.Value
	name string
	set  *setFlags
}

func (r *recorded) Set(v string) error {
	if err := r.Value.Set(v); err != nil {
		return err
	}
	r.set.mu.Lock()
	r.set.raw[r.name] = v
	r.set.mu.Unlock()
	return nil
}

func (r *recorded) String() string {
	if r == nil || r.Value == nil {
		return "" // the flag package probes a zero value for its default
	}
	return r.Value.String()
}

// IsBoolFlag keeps -verbose usable without a value.
func (r *recorded) IsBoolFlag() bool {
	b, ok := r.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// modules caches the settings of each module root.
type modules struct {
	mu    sync.Mutex
	m     map[string]*module
	loads int // modules loaded, for tests
}

type module struct {
	once sync.Once
	s    *Settings
	err  error
}

// ForPackage returns the settings in force for the package of pass.
func (s *Settings) ForPackage(pass *analysis.Pass) (*Settings, error) {
	if s.modules == nil {
		return s, nil // already a module's settings
	}
	dir := ""
	switch {
	case len(pass.Files) > 0 && pass.Fset.File(pass.Files[0].Pos()) != nil:
		dir = filepath.Dir(pass.Fset.File(pass.Files[0].Pos()).Name())
	case len(pass.OtherFiles) > 0:
		dir = filepath.Dir(pass.OtherFiles[0])
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	root := config.FindRoot(dir)
	if root == "" && len(pass.Files) == 0 && dir != "" {
		// .sql files outside any module (Harbor's make/migrations): their
		// directory is where their schema is found.
		root = dir
	}
	return s.module(root)
}

// Preload loads the settings of the module holding dir ahead of its
// packages: the dsqllint command calls it while go list runs, where the
// first package's analysis would wait for them (the schema read from a
// large repository's migrations).
func (s *Settings) Preload(dir string) {
	if s.modules == nil {
		return
	}
	if abs, err := filepath.Abs(dir); err == nil {
		if root := config.FindRoot(abs); root != "" {
			s.module(root)
		}
	}
}

// module returns the settings of the module at root, loaded once.
func (s *Settings) module(root string) (*Settings, error) {
	s.modules.mu.Lock()
	m := s.modules.m[root]
	if m == nil {
		m = &module{}
		s.modules.m[root] = m
	}
	s.modules.mu.Unlock()
	m.once.Do(func() {
		m.s, m.err = s.load(root)
		s.modules.mu.Lock()
		s.modules.loads++
		s.modules.mu.Unlock()
	})
	return m.s, m.err
}

// load builds the settings of the module at root.
func (s *Settings) load(root string) (*Settings, error) {
	ms := NewSettings()
	ms.Root = root
	ms.ModuleStage = s.ModuleStage
	ms.NoFixes = s.NoFixes
	ms.Explain = s.Explain
	ms.FactsOnly = s.FactsOnly
	ms.Helpers = s.Helpers
	fs := flag.NewFlagSet("dsqllint", flag.ContinueOnError)
	ms.Register(fs)
	explicit := s.flags.get()
	if root != "" {
		path := filepath.Join(root, config.FileName)
		if _, err := os.Stat(path); err == nil {
			f, err := config.Load(path, func(k string) bool { return fs.Lookup(k) != nil })
			if err != nil {
				return nil, err
			}
			for _, st := range f.Settings {
				if _, ok := explicit[st.Key]; ok {
					continue // the flag overrides the file
				}
				if err := fs.Set(st.Key, st.Value); err != nil {
					return nil, f.Errorf(st.Line, "%s: %v", st.Key, err)
				}
			}
			ms.File = f
			for _, c := range f.Coordination {
				ms.Cfg.Coordination = append(ms.Cfg.Coordination, fencing.Coordination{Table: c.Table, Version: c.Version, Owner: c.Owner, State: c.State,
					Why: c.Why, Where: config.FileName + ":" + strconv.Itoa(c.Line)})
			}
		}
	}
	for k, v := range explicit {
		if err := fs.Set(k, v); err != nil {
			return nil, fmt.Errorf("-%s: %v", k, err)
		}
	}
	ms.Runtime, ms.goLine, ms.ModulePath, ms.Requires = goMod(root)
	if root != "" {
		if w := config.FindWorkspace(root); w != nil && w.Has(root) {
			for _, m := range w.Modules {
				ms.Workspace = append(ms.Workspace, m.Path)
			}
		}
	}
	base := root
	if base == "" {
		if len(ms.schema) == 0 {
			return ms, nil // no module: no schema to find
		}
		base, _ = os.Getwd()
	}
	src, err := catalog.Discover(base, ms.schema)
	ms.Sqlc = src.Sqlc
	if err != nil {
		if ms.File != nil && len(ms.schema) > 0 && explicit["schema"] == "" {
			return nil, ms.File.Errorf(ms.File.Line("schema"), "%v", err)
		}
		return nil, err
	}
	ms.MigrationDirs = migrationDirs(src)
	ms.otherDialect = src.OtherDialect
	if ms.Verbose && len(src.OtherDialect) > 0 {
		fmt.Fprintf(os.Stderr, "dsqllint: %s: SQL named for another database, beside PostgreSQL's, left out: %s\n", base, strings.Join(src.OtherDialect, ", "))
	}
	if len(src.Files) > 0 {
		cat, err := catalog.Load(base, src.Files)
		if err != nil {
			return nil, err
		}
		ms.Cfg.Schema = cat
		if ms.Verbose {
			fmt.Fprintf(os.Stderr, "dsqllint: %s: schema of %d tables from the %s (%d files)\n", base, cat.Len(), src.From, len(src.Files))
		}
	}
	return ms, nil
}

// migrationDirs are the directories of the schema's files that hold no
// sqlc query file: migrations, which a migrator runs once.
func migrationDirs(src catalog.Source) map[string]bool {
	queries := map[string]bool{} // directories of query files
	for _, p := range src.Sqlc {
		for _, q := range p.Queries {
			if st, err := os.Stat(q); err == nil && st.IsDir() {
				queries[filepath.Clean(q)] = true
			} else {
				queries[filepath.Dir(q)] = true
			}
		}
	}
	dirs := map[string]bool{}
	for _, f := range src.Files {
		if d := filepath.Dir(f); !queries[d] {
			dirs[d] = true
		}
	}
	return dirs
}

// Excluding returns a copy of pass whose reports drop what the module's
// exclude entries name.
func (s *Settings) Excluding(pass *analysis.Pass) *analysis.Pass {
	p := *pass
	report := pass.Report
	p.Report = func(d analysis.Diagnostic) {
		if !s.Excluded(pass, d.Pos, d.Category) {
			report(d)
		}
	}
	return &p
}

// Excluded reports a finding of category at pos that the module's exclude
// entries drop.
func (s *Settings) Excluded(pass *analysis.Pass, pos token.Pos, category string) bool {
	name := pass.Fset.Position(pos).Filename
	rel, err := filepath.Rel(s.Root, name)
	return err == nil && !strings.HasPrefix(rel, "..") && s.File.Excluded(filepath.ToSlash(rel), category)
}

// ListFlag is a comma-separated list flag.
type ListFlag []string

func (l *ListFlag) String() string { return strings.Join(*l, ",") }

func (l *ListFlag) Set(s string) error {
	*l = nil
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

// The modules of the retry runtime, each with only the requirements its
// code needs: occ needs the standard library alone, occpgx pgx v5, occprom
// client_golang.
const (
	RuntimeOCC     = "github.com/dsqllint/dsqllint/runtime"
	RuntimeOCCPGX  = "github.com/dsqllint/dsqllint/runtime/occpgx"
	RuntimeOCCProm = "github.com/dsqllint/dsqllint/runtime/occprom"
)

// RuntimeModule returns the module of the runtime's package path.
func RuntimeModule(path string) string {
	for _, m := range []string{RuntimeOCCPGX, RuntimeOCCProm} {
		if path == m || strings.HasPrefix(path, m+"/") {
			return m
		}
	}
	return RuntimeOCC
}

// RuntimeGo is the go line of the runtime's modules: a module below it
// cannot require them without raising its own.
const RuntimeGo = "1.22"

// Version is the version of the runtime this dsqllint carries — its own:
// a release tags every module of the repository at once. Empty for a
// development build, which adds no requirement.
var Version = linterVersion()

// linterVersion returns the released version of the dsqllint module in
// the build: the main module (go install ...@v1.2.0), or a dependency (a
// golangci-lint build with the plugin).
func linterVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	if bi.Main.Path == linterModule && Released(bi.Main.Version) {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == linterModule && Released(d.Version) {
			return d.Version
		}
	}
	return ""
}

const linterModule = "github.com/dsqllint/dsqllint"

// Released reports a release version (v1.2.0): not a pseudo-version, not
// the workspace's v0.0.0.
func Released(v string) bool {
	return semver.IsValid(v) && semver.Prerelease(v) == "" && semver.Build(v) == "" && v != "v0.0.0"
}

// CanImportRuntime reports whether the module may import the runtime's
// package path: it is, or requires, the module that holds it — or, in
// the dsqllint command (ModuleStage) of a release, the command adds the
// requirement when -fix writes the import, to a module whose go line
// allows it.
func (s *Settings) CanImportRuntime(path string) bool {
	if s.Runtime[RuntimeModule(path)] {
		return true
	}
	return s.ModuleStage && Version != "" && s.goLine != "" && goversion.Compare("go"+s.goLine, "go"+RuntimeGo) >= 0
}

// goMod reads the module's go.mod at root: the runtime's modules it is or
// requires, its go line, its path and the modules it requires directly.
func goMod(root string) (runtime map[string]bool, goLine, path string, requires []string) {
	if root == "" {
		return nil, "", "", nil
	}
	name := filepath.Join(root, "go.mod")
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, "", "", nil
	}
	f, err := modfile.ParseLax(name, data, nil)
	if err != nil || f.Module == nil {
		return nil, "", "", nil
	}
	path = f.Module.Mod.Path
	if f.Go != nil {
		goLine = f.Go.Version
	}
	for _, r := range f.Require {
		if !r.Indirect {
			requires = append(requires, r.Mod.Path)
		}
	}
	out := map[string]bool{}
	for _, m := range []string{RuntimeOCC, RuntimeOCCPGX, RuntimeOCCProm} {
		if f.Module.Mod.Path == m {
			out[m] = true
		}
		for _, r := range f.Require {
			if r.Mod.Path == m {
				out[m] = true
			}
		}
	}
	return out, goLine, path, requires
}

// OtherDialect reports a .sql file of another database's SQL, kept
// beside the PostgreSQL copy the module ports (migrations/mysql/...,
// schema.sqlite.sql): it is not linted.
func (s *Settings) OtherDialect(file string) bool {
	if len(s.otherDialect) == 0 {
		return false
	}
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	for _, p := range s.otherDialect {
		if file == p || strings.HasPrefix(file, p+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// SQLiteQueries reports a query file of a sqlc package whose engine is
// SQLite.
func (s *Settings) SQLiteQueries(file string) bool {
	for _, p := range s.Sqlc {
		if !strings.EqualFold(p.Engine, "sqlite") {
			continue
		}
		for _, q := range p.Queries {
			if q == file || strings.HasPrefix(file, q+string(filepath.Separator)) {
				return true
			}
		}
	}
	return false
}
