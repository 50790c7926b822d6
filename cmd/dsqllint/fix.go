package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
	"golang.org/x/mod/modfile"

	"github.com/dsqllint/dsqllint/fixer"
	"github.com/dsqllint/dsqllint/modconf"
)

// applyFixes applies the first suggested fix of every finding, to Go and
// .sql files alike, or with -diff prints exactly what it would write. A
// fix whose edits overlap those of a fix taken before it (in the order of
// the findings) is left: left counts them; applied counts the fixes taken.
func applyFixes(fset *token.FileSet, fs []*finding, diff bool) (code, applied, left int) {
	byFile := map[string][]fixer.Edit{}
	for _, f := range fs {
		if len(f.SuggestedFixes) == 0 {
			continue
		}
		edits := map[string][]fixer.Edit{}
		for _, e := range f.SuggestedFixes[0].TextEdits {
			tf := fset.File(e.Pos)
			edits[tf.Name()] = append(edits[tf.Name()], fixer.Edit{Start: tf.Offset(e.Pos), End: tf.Offset(e.End), New: string(e.NewText)})
		}
		overlaps := false
		for name, es := range edits {
			overlaps = overlaps || fixer.Overlap(byFile[name], es)
		}
		if overlaps {
			left++
			continue
		}
		for name, es := range edits {
			byFile[name] = append(byFile[name], es...)
		}
		applied++
	}
	names := make([]string, 0, len(byFile))
	for name := range byFile {
		names = append(names, name)
	}
	sort.Strings(names)
	code = exitClean
	written := map[string][]byte{} // what the files held before
	diffed := map[string][]byte{}  // with -diff, what they would hold
	for _, name := range names {
		content, err := os.ReadFile(name)
		var fixed []byte
		if err == nil {
			fixed, err = fixedContent(name, content, byFile[name])
		}
		switch {
		case err != nil:
			fmt.Fprintf(os.Stderr, "dsqllint: fixing %s: %v\n", shortPath(name), err)
			code = exitFailure
		case diff:
			label := shortPath(name)
			fmt.Print(udiff.Unified(label, label, string(content), string(fixed)))
			diffed[name] = fixed
		default:
			if err := writeSameMode(name, fixed); err != nil {
				fmt.Fprintf(os.Stderr, "dsqllint: fixing %s: %v\n", shortPath(name), err)
				code = exitFailure
			} else {
				written[name] = content
			}
		}
	}
	if diff {
		// go.mod is no file of the diff: say what -fix would add to it.
		for root, pkgs := range runtimeImports(diffed) {
			if args := missingRuntime(root, pkgs); len(args) > 0 {
				fmt.Fprintf(os.Stderr, "dsqllint: %s: -fix would also run go get %s (the fixes import dsqllint's runtime)\n", shortPath(filepath.Join(root, "go.mod")), strings.Join(args, " "))
			}
		}
	}
	if !diff && requireRuntime(written) != nil {
		// Some fixes were undone: another round would only redo them.
		code, applied = exitFailure, 0
	}
	return code, applied, left
}

// requireRuntime adds, to the go.mod of each module whose Go files the
// fixes made import a package of dsqllint's runtime, the requirement on
// the runtime's module that holds it, at this dsqllint's version
// (modconf.Version; the fixes are offered without the requirement only
// then). go get adds it and its hashes to go.sum; any other change it
// makes — a go line, another requirement raised or added — is undone and
// said: the user decides those. Where the requirement is not added, the
// files whose fixes import the runtime are restored (before, what each
// held), so that the module still builds.
func requireRuntime(before map[string][]byte) error {
	now := map[string][]byte{}
	for name := range before {
		if data, err := os.ReadFile(name); err == nil {
			now[name] = data
		}
	}
	need := runtimeImports(now)
	var errs []error
	for root, mods := range need {
		if err := addRequirements(root, mods); err != nil {
			var undone []string
			for _, name := range importersIn(root, now) {
				if werr := writeSameMode(name, before[name]); werr == nil {
					undone = append(undone, shortPath(name))
				}
			}
			err = fmt.Errorf("%v\nthe fixes of %s, which import it, are undone", err, strings.Join(undone, ", "))
			fmt.Fprintf(os.Stderr, "dsqllint: %v\n", err)
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// runtimeImports returns, by module root, the runtime packages the Go
// files (their contents by name) import.
func runtimeImports(files map[string][]byte) map[string]map[string]bool {
	need := map[string]map[string]bool{}
	for name, data := range files {
		for _, path := range runtimeImportsOf(name, data) {
			if root := moduleRoot(filepath.Dir(name)); root != "" {
				if need[root] == nil {
					need[root] = map[string]bool{}
				}
				need[root][path] = true
			}
		}
	}
	return need
}

// importersIn returns the files of the module at root, among files, that
// import a runtime package.
func importersIn(root string, files map[string][]byte) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if moduleRoot(filepath.Dir(name)) == root && len(runtimeImportsOf(name, files[name])) > 0 {
			out = append(out, name)
		}
	}
	return out
}

// runtimeImportsOf returns the runtime packages a Go file imports.
func runtimeImportsOf(name string, data []byte) []string {
	if !strings.HasSuffix(name, ".go") {
		return nil
	}
	f, err := parser.ParseFile(token.NewFileSet(), name, data, parser.ImportsOnly)
	if err != nil {
		return nil
	}
	var out []string
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path == modconf.RuntimeOCC || strings.HasPrefix(path, modconf.RuntimeOCC+"/") {
			out = append(out, path)
		}
	}
	return out
}

// missingRuntime returns the go get arguments (package@version) for the
// runtime packages pkgs whose modules the module at root does not
// require: none for one of ours, or for a development build, which
// offers no such fix.
func missingRuntime(root string, pkgs map[string]bool) []string {
	f, err := readModFile(filepath.Join(root, "go.mod"))
	if err != nil || modconf.Version == "" || f.Module != nil && strings.HasPrefix(f.Module.Mod.Path, "github.com/dsqllint/dsqllint") {
		return nil
	}
	required := map[string]bool{}
	for _, r := range f.Require {
		required[r.Mod.Path] = true
	}
	var args []string
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		if !required[modconf.RuntimeModule(p)] {
			args = append(args, p+"@"+modconf.Version)
		}
	}
	return args
}

// addRequirements runs go get for the runtime packages pkgs whose modules
// the module at root does not require yet, and keeps what it did only if
// that is all it did.
func addRequirements(root string, pkgs map[string]bool) error {
	gomod := filepath.Join(root, "go.mod")
	before, err := readModFile(gomod)
	if err != nil {
		return err
	}
	args := missingRuntime(root, pkgs)
	if len(args) == 0 {
		return nil
	}
	mods := map[string]bool{}
	for _, a := range args {
		mods[modconf.RuntimeModule(strings.SplitN(a, "@", 2)[0])] = true
	}
	saved := map[string][]byte{}
	for _, name := range []string{gomod, filepath.Join(root, "go.sum")} {
		if data, err := os.ReadFile(name); err == nil {
			saved[name] = data
		}
	}
	restore := func() {
		for name, data := range saved {
			os.WriteFile(name, data, 0o644)
		}
		if _, ok := saved[filepath.Join(root, "go.sum")]; !ok {
			os.Remove(filepath.Join(root, "go.sum"))
		}
	}
	cmd := exec.Command("go", append([]string{"get"}, args...)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		restore()
		return fmt.Errorf("%s: the fixes import dsqllint's runtime, and go get %s failed: %v\n%s", shortPath(gomod), strings.Join(args, " "), err, out)
	}
	after, err := readModFile(gomod)
	if err != nil {
		restore()
		return err
	}
	if changed := otherChanges(before, after, mods); len(changed) > 0 {
		restore()
		return fmt.Errorf("%s: the fixes import dsqllint's runtime, but go get %s would also change %s; go.mod is left as it was: decide those, then go get %[2]s", shortPath(gomod), strings.Join(args, " "), strings.Join(changed, ", "))
	}
	// go get marks the requirement // indirect; the fixed files import
	// its packages.
	reqs := make([]*modfile.Require, 0, len(after.Require))
	for _, r := range after.Require {
		reqs = append(reqs, &modfile.Require{Mod: r.Mod, Indirect: r.Indirect && !mods[r.Mod.Path]})
	}
	after.SetRequireSeparateIndirect(reqs) // where go mod tidy puts a direct one
	after.Cleanup()
	data, err := after.Format()
	if err == nil {
		err = os.WriteFile(gomod, data, 0o644)
	}
	if err != nil {
		restore()
		return err
	}
	fmt.Fprintf(os.Stderr, "dsqllint: %s: added %s (the fixes import dsqllint's runtime)\n", shortPath(gomod), strings.Join(args, ", "))
	return nil
}

// otherChanges lists what after changes of before besides requiring the
// modules added.
func otherChanges(before, after *modfile.File, added map[string]bool) []string {
	var out []string
	goBefore, tcBefore := goLines(before)
	goAfter, tcAfter := goLines(after)
	if goBefore != goAfter {
		out = append(out, fmt.Sprintf("the go line from %s to %s", goBefore, goAfter))
	}
	if tcBefore != tcAfter {
		out = append(out, fmt.Sprintf("the toolchain from %q to %q", tcBefore, tcAfter))
	}
	was := map[string]string{}
	for _, r := range before.Require {
		was[r.Mod.Path] = r.Mod.Version
	}
	for _, r := range after.Require {
		switch v, ok := was[r.Mod.Path]; {
		case !ok && !added[r.Mod.Path]:
			out = append(out, "a requirement of "+r.Mod.Path+" "+r.Mod.Version)
		case ok && v != r.Mod.Version:
			out = append(out, r.Mod.Path+" from "+v+" to "+r.Mod.Version)
		}
	}
	return out
}

// goLines returns a go.mod's go and toolchain lines ("" where absent).
func goLines(f *modfile.File) (goLine, toolchain string) {
	if f.Go != nil {
		goLine = f.Go.Version
	}
	if f.Toolchain != nil {
		toolchain = f.Toolchain.Name
	}
	return goLine, toolchain
}

func readModFile(name string) (*modfile.File, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return modfile.Parse(name, data, nil)
}

// moduleRoot returns the nearest directory at or above dir with a go.mod.
func moduleRoot(dir string) string {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// fixedContent is a file's content with the edits applied. A Go file
// that was gofmt-formatted stays so (an import the fix adds is sorted
// into its group, a const block realigned); one that no longer parses is
// not written.
func fixedContent(name string, content []byte, edits []fixer.Edit) ([]byte, error) {
	fixed, err := fixer.Apply(content, edits)
	if err != nil || !strings.HasSuffix(name, ".go") {
		return fixed, err
	}
	formatted, err := format.Source(fixed)
	if err != nil {
		return nil, fmt.Errorf("the fixed file would not parse, left as it is: %v", err)
	}
	if was, err := format.Source(content); err == nil && bytes.Equal(was, content) {
		return formatted, nil
	}
	return fixed, nil // not gofmt-formatted before: change only what the fixes change
}
