package gosql

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/modconf"
	"github.com/dsqllint/dsqllint/sqltext"
	"github.com/dsqllint/dsqllint/txflow"
)

// New returns the pass that finds a package's SQL under the settings s:
// its Result is the package's *Package (nil for a package with nothing to
// look at: one loaded from export data, a library modconf.Library rules
// out, a package whose module's settings fail to load — the pass that
// reports says why).
func New(s *modconf.Settings) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:             "gosql",
		Doc:              "find the SQL a Go package runs: texts, the query calls that run them and where they sit",
		RunDespiteErrors: true,
		Run:              func(pass *analysis.Pass) (any, error) { return run(s, pass), nil },
		ResultType:       reflect.TypeOf((*Package)(nil)),
	}
}

// Skip reports a package no pass of dsqllint looks at: one with no Go
// files and no .sql file, one loaded from export data, or a library.
func Skip(pass *analysis.Pass) bool {
	return len(pass.Files) == 0 && !slices.ContainsFunc(pass.OtherFiles, IsSQLFile) || len(pass.Files) > 0 && (pass.TypesInfo == nil || modconf.Library(pass))
}

func run(s *modconf.Settings, pass *analysis.Pass) (p *Package) {
	if Skip(pass) {
		return nil
	}
	ms, err := s.ForPackage(pass)
	if err != nil {
		return nil
	}
	p = &Package{Pass: pass, Settings: ms, Funcs: map[*types.Func]*ast.FuncDecl{}, testSupport: txflow.TestSupport(pass.Pkg.Path())}
	// A bug of ours must not crash go vet for the whole repository: it
	// becomes this package's error, reported after its findings.
	defer func() {
		if r := recover(); r != nil {
			p.Err = errors.Join(p.Err, fmt.Errorf("dsqllint internal error (please report): %v", r))
		}
	}()
	texts := p.Collect()
	if OnlyNonSQLClient(pass.Pkg) {
		texts = texts[:0] // its strings are CQL or another language, not SQL
	}
	queryFiles, generated := p.SqlcFiles()
	p.Generated = generated
	for _, t := range texts {
		if t.Node != nil && strings.HasPrefix(strings.TrimSpace(t.SQL), "-- name:") && generated[p.FileOf(t.Node.Pos())] {
			t.Generated = true
		}
	}
	embedded := p.Embedded()
	p.linkEmbedded(embedded)
	texts = append(texts, embedded...)
	// .sql files named as other files of the pass (the CLI's plain SQL
	// mode), and the query files of sqlc-generated code.
	seen := map[string]bool{}
	for _, t := range embedded {
		seen[pass.Fset.File(t.Pos(0, false)).Name()] = true
	}
	for _, name := range append(pass.OtherFiles, queryFiles...) {
		if IsSQLFile(name) && !seen[name] {
			seen[name] = true
			if t := p.SQLFile(name); t != nil {
				texts = append(texts, t)
			}
		}
	}
	p.noteDialectCallees()
	required := requiredDatabases(ms)
	if p.OtherDatabase = OtherDatabase(pass.Files, pass.Fset, ms, required, p.dir(), p.choosesPostgres); p.OtherDatabase != "" {
		texts = nil
		if ms.Verbose {
			fmt.Fprintf(os.Stderr, "dsqllint: %s: %s SQL beside the module's PostgreSQL, left out\n", pass.Pkg.Path(), p.OtherDatabase)
		}
	} else if p.otherFiles = otherDatabaseFiles(required, p.fileNames()); p.otherFiles != nil || p.otherRegions != nil {
		texts = slices.DeleteFunc(texts, func(t *sqltext.Text) bool { return p.OtherDatabaseAt(t.Pos(0, false)) })
		if ms.Verbose {
			for name, db := range p.otherFiles {
				fmt.Fprintf(os.Stderr, "dsqllint: %s: %s SQL beside the module's PostgreSQL, left out\n", name, db)
			}
		}
	}
	p.Texts = texts
	p.Parsed = p.Parse(texts)
	p.sprintfs = nil // read by Parse only (naming holes)
	return p
}

// dir is the package's directory.
func (c *Package) dir() string {
	if len(c.Pass.Files) > 0 {
		return filepath.Dir(c.Pass.Fset.File(c.Pass.Files[0].Pos()).Name())
	}
	if len(c.Pass.OtherFiles) > 0 {
		return filepath.Dir(c.Pass.OtherFiles[0])
	}
	return ""
}

// fileNames are the names of the package's Go files.
func (c *Package) fileNames() []string {
	out := make([]string, 0, len(c.Pass.Files))
	for _, f := range c.Pass.Files {
		out = append(out, c.Pass.Fset.File(f.Pos()).Name())
	}
	return out
}

// OtherDatabaseAt reports a position in the package's SQL for another
// database: the package's (OtherDatabase), its file's
// (otherDatabaseFiles), or a branch's (noteDialectBranch).
func (c *Package) OtherDatabaseAt(pos token.Pos) bool {
	if c.OtherDatabase != "" {
		return true
	}
	if !pos.IsValid() {
		return false
	}
	if c.otherRegions != nil && c.inOtherRegion(pos) {
		return true
	}
	if c.otherFiles == nil {
		return false
	}
	f := c.Pass.Fset.File(pos)
	return f != nil && c.otherFiles[f.Name()] != ""
}
