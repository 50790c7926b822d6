package config

import (
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"
)

// Workspace is a go.work file: its directory, and the directories and
// module paths of the modules it uses.
type Workspace struct {
	Dir     string
	Modules []WorkModule
}

// WorkModule is one `use` of a go.work file.
type WorkModule struct {
	Dir, Path string
}

// FindWorkspace returns the workspace the go command would use for dir:
// the file GOWORK names, else the nearest go.work at or above dir; nil
// when there is none, GOWORK is off, or the file does not parse.
func FindWorkspace(dir string) *Workspace {
	file := os.Getenv("GOWORK")
	switch {
	case file == "off":
		return nil
	case file == "":
		for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
				file = filepath.Join(d, "go.work")
				break
			}
			if filepath.Dir(d) == d {
				return nil
			}
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	wf, err := modfile.ParseWork(file, data, nil)
	if err != nil {
		return nil
	}
	w := &Workspace{Dir: filepath.Dir(file)}
	for _, u := range wf.Use {
		d := u.Path
		if !filepath.IsAbs(d) {
			d = filepath.Join(w.Dir, d)
		}
		gomod, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err != nil {
			continue
		}
		if p := modfile.ModulePath(gomod); p != "" {
			w.Modules = append(w.Modules, WorkModule{Dir: filepath.Clean(d), Path: p})
		}
	}
	return w
}

// Has reports whether dir is inside one of the workspace's modules.
func (w *Workspace) Has(dir string) bool {
	for _, m := range w.Modules {
		if rel, err := filepath.Rel(m.Dir, dir); err == nil && filepath.IsLocal(rel) {
			return true
		}
	}
	return false
}
