package analyzer

import (
	"flag"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/catalog"
	"github.com/dsqllint/dsqllint/config"
	"github.com/dsqllint/dsqllint/rules"
)

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
	s    *settings
	err  error
}

// forPackage returns the settings in force for the package of pass.
func (s *settings) forPackage(pass *analysis.Pass) (*settings, error) {
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
func (s *settings) load(root string) (*settings, error) {
	ms := newSettings()
	ms.root = root
	ms.moduleStage = s.moduleStage
	ms.helpers = s.helpers
	fs := flag.NewFlagSet("dsqllint", flag.ContinueOnError)
	ms.register(fs)
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
			ms.file = f
			for _, c := range f.Coordination {
				ms.cfg.Coordination = append(ms.cfg.Coordination, rules.Coordination{Table: c.Table, Version: c.Version, Owner: c.Owner, State: c.State,
					Why: c.Why, Where: config.FileName + ":" + strconv.Itoa(c.Line)})
			}
		}
	}
	for k, v := range explicit {
		if err := fs.Set(k, v); err != nil {
			return nil, fmt.Errorf("-%s: %v", k, err)
		}
	}
	ms.requiresDSQLLint = requiresModule(root, dsqllintModule)
	if root != "" {
		if w := config.FindWorkspace(root); w != nil && w.Has(root) {
			for _, m := range w.Modules {
				ms.workspace = append(ms.workspace, m.Path)
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
	ms.sqlc = src.Sqlc
	if err != nil {
		if ms.file != nil && len(ms.schema) > 0 && explicit["schema"] == "" {
			return nil, ms.file.Errorf(ms.file.Line("schema"), "%v", err)
		}
		return nil, err
	}
	ms.migrationDirs = migrationDirs(src)
	if len(src.Files) > 0 {
		cat, err := catalog.Load(base, src.Files)
		if err != nil {
			return nil, err
		}
		ms.cfg.Schema = cat
		if ms.verbose {
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

// excluding returns a copy of pass whose reports drop what the module's
// exclude entries name.
func (s *settings) excluding(pass *analysis.Pass) *analysis.Pass {
	p := *pass
	report := pass.Report
	p.Report = func(d analysis.Diagnostic) {
		if !s.excluded(pass, d.Pos, d.Category) {
			report(d)
		}
	}
	return &p
}

// excluded reports a finding of category at pos that the module's exclude
// entries drop.
func (s *settings) excluded(pass *analysis.Pass, pos token.Pos, category string) bool {
	name := pass.Fset.Position(pos).Filename
	rel, err := filepath.Rel(s.root, name)
	return err == nil && !strings.HasPrefix(rel, "..") && s.file.Excluded(filepath.ToSlash(rel), category)
}

// listFlag is a comma-separated list flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	*l = nil
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

// dsqllintModule is this module's path: fixes that import its runtime
// are offered only to modules that require it.
const dsqllintModule = "github.com/dsqllint/dsqllint"

// requiresModule reports whether the module at root is path or requires
// it, by its go.mod.
func requiresModule(root, path string) bool {
	if root == "" {
		return false
	}
	name := filepath.Join(root, "go.mod")
	data, err := os.ReadFile(name)
	if err != nil {
		return false
	}
	f, err := modfile.ParseLax(name, data, nil)
	if err != nil || f.Module == nil {
		return false
	}
	if f.Module.Mod.Path == path {
		return true
	}
	for _, r := range f.Require {
		if r.Mod.Path == path {
			return true
		}
	}
	return false
}
