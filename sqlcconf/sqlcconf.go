// Package sqlcconf reads sqlc's configuration (sqlc.yaml, sqlc.yml,
// sqlc.json; versions 1 and 2): for each of its SQL packages, the engine,
// the schema and query paths, and the directory the Go code is generated
// into. Paths come back joined to the configuration's directory.
package sqlcconf

import (
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Names are the file names sqlc reads its configuration from.
var Names = []string{"sqlc.yaml", "sqlc.yml", "sqlc.json"}

// Package is one SQL package of a configuration.
type Package struct {
	Config  string // the configuration file
	Engine  string // "postgresql" when not written, sqlc's default
	Schema  []string
	Queries []string
	// Out is the directory the Go code is generated into ("" when the
	// package generates no Go).
	Out string
}

// Postgres reports an engine whose SQL is PostgreSQL's.
func (p Package) Postgres() bool {
	e := strings.ToLower(p.Engine)
	return e == "" || e == "postgresql" || e == "postgres"
}

type file struct {
	SQL []struct {
		Engine  string    `yaml:"engine"`
		Schema  stringish `yaml:"schema"`
		Queries stringish `yaml:"queries"`
		Gen     struct {
			Go struct {
				Out string `yaml:"out"`
			} `yaml:"go"`
		} `yaml:"gen"`
	} `yaml:"sql"`
	Packages []struct {
		Engine  string    `yaml:"engine"`
		Schema  stringish `yaml:"schema"`
		Queries stringish `yaml:"queries"`
		Path    string    `yaml:"path"`
	} `yaml:"packages"`
}

// stringish is a YAML string or list of strings.
type stringish []string

func (s *stringish) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*s = []string{n.Value}
		return nil
	}
	var l []string
	if err := n.Decode(&l); err != nil {
		return err
	}
	*s = l
	return nil
}

// Read reads a configuration file. A file sqlc itself would reject is an
// error; sqlc reports it better than we can, so callers skip it.
func Read(path string) ([]Package, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f file
	if err := yaml.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	join := func(paths []string) []string {
		out := make([]string, len(paths))
		for i, p := range paths {
			out[i] = joinDir(dir, p)
		}
		return out
	}
	var out []Package
	for _, s := range f.SQL {
		p := Package{Config: path, Engine: s.Engine, Schema: join(s.Schema), Queries: join(s.Queries)}
		if s.Gen.Go.Out != "" {
			p.Out = joinDir(dir, s.Gen.Go.Out)
		}
		out = append(out, p)
	}
	for _, s := range f.Packages {
		p := Package{Config: path, Engine: s.Engine, Schema: join(s.Schema), Queries: join(s.Queries)}
		if s.Path != "" {
			p.Out = joinDir(dir, s.Path)
		}
		out = append(out, p)
	}
	return out, nil
}

func joinDir(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}
