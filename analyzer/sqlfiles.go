package analyzer

import (
	"go/token"
	"go/types"
	"os"
	"sort"

	"golang.org/x/tools/go/analysis"
)

// CheckSQLFiles runs analyzer a (built by New) over plain .sql files as the
// "other files" of an empty package, so that they are checked together: a
// fence declared in a schema file or used by one query informs the others.
// Diagnostics come back in file order.
func CheckSQLFiles(a *analysis.Analyzer, fset *token.FileSet, files []string) ([]analysis.Diagnostic, error) {
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return nil, err
		}
	}
	var diags []analysis.Diagnostic
	pkg := types.NewPackage("sqlfiles", "sqlfiles")
	results := map[*analysis.Analyzer]any{}
	var runPass func(a *analysis.Analyzer) error
	runPass = func(a *analysis.Analyzer) error {
		if _, done := results[a]; done {
			return nil
		}
		for _, req := range a.Requires {
			if err := runPass(req); err != nil {
				return err
			}
		}
		pass := &analysis.Pass{
			Analyzer:   a,
			Fset:       fset,
			OtherFiles: files,
			Pkg:        pkg,
			TypesInfo:  &types.Info{},
			TypesSizes: types.SizesFor("gc", "amd64"),
			ResultOf:   results,
			Report:     func(d analysis.Diagnostic) { diags = append(diags, d) },
			ReadFile:   os.ReadFile,
		}
		res, err := a.Run(pass)
		results[a] = res
		return err
	}
	if err := runPass(a); err != nil {
		return nil, err
	}
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Pos < diags[j].Pos })
	return diags, nil
}
