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
	pass := &analysis.Pass{
		Analyzer:   a,
		Fset:       fset,
		OtherFiles: files,
		Pkg:        types.NewPackage("sqlfiles", "sqlfiles"),
		TypesInfo:  &types.Info{},
		TypesSizes: types.SizesFor("gc", "amd64"),
		ResultOf:   map[*analysis.Analyzer]any{},
		Report:     func(d analysis.Diagnostic) { diags = append(diags, d) },
		ReadFile:   os.ReadFile,
	}
	if _, err := a.Run(pass); err != nil {
		return nil, err
	}
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Pos < diags[j].Pos })
	return diags, nil
}
