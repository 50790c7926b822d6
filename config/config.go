package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FileName is the configuration file's name at the module root.
const FileName = ".dsqllint.yaml"

// File is a parsed configuration file.
type File struct {
	Path string
	// Settings are flag values in flag syntax (lists comma-joined), in
	// file order.
	Settings []Setting
	Excludes []Exclude
	// Coordination are the tables declared coordinated by what the code
	// cannot show (DSQL003).
	Coordination []Coordination
}

// Coordination declares a table whose writers something outside the code
// keeps apart today (a Redis mutex, a single scheduler): on Aurora DSQL
// each write must compare what the declaration names.
type Coordination struct {
	Table   string
	Version []string // compare-and-set by every writer
	Owner   []string // the holder's, compared by every writer
	State   []string // the state a holder's claim protects
	Why     string   // what keeps the writers apart today
	Line    int
}

// Setting is one key of the file.
type Setting struct {
	Key, Value string
	Line       int
}

// Exclude drops the findings in files matching Path (relative to the
// module root; `*` within a segment, `**` across segments, a directory
// means everything below it), of the listed rules or of every rule.
type Exclude struct {
	Path  string
	Rules []string
	Line  int
}

// Error is a problem with the file, at a line.
type Error struct {
	Path string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Line returns the line of a setting, or 0.
func (f *File) Line(key string) int {
	for _, s := range f.Settings {
		if s.Key == key {
			return s.Line
		}
	}
	return 0
}

// Errorf builds an Error at the line of a setting or exclude.
func (f *File) Errorf(line int, format string, args ...any) error {
	return &Error{Path: f.Path, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Load reads the file at path. known reports the settings the analyzer
// has (its flag names); any other key but exclude is an error naming the
// file and line.
func Load(path string, known func(string) bool) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data, known)
}

// Parse is Load for data already read.
func Parse(path string, data []byte, known func(string) bool) (*File, error) {
	f := &File{Path: path}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, f.yamlError(err)
	}
	if len(bytes.TrimSpace(data)) == 0 || len(doc.Content) == 0 {
		return f, nil // an empty file configures nothing
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, f.Errorf(root.Line, "want a mapping of settings (key: value), not a %s", kindName(root))
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if prev, dup := seen[k.Value]; dup {
			return nil, f.Errorf(k.Line, "%s is set twice (first at line %d)", k.Value, prev)
		}
		seen[k.Value] = k.Line
		if k.Value == "exclude" {
			if err := f.excludes(v); err != nil {
				return nil, err
			}
			continue
		}
		if k.Value == "coordination" {
			if err := f.coordination(v); err != nil {
				return nil, err
			}
			continue
		}
		if !known(k.Value) {
			return nil, f.Errorf(k.Line, "unknown key %q", k.Value)
		}
		val, err := flagValue(v)
		if err != nil {
			return nil, f.Errorf(v.Line, "%s: %v", k.Value, err)
		}
		f.Settings = append(f.Settings, Setting{Key: k.Value, Value: val, Line: v.Line})
	}
	return f, nil
}

// yamlError turns the YAML library's "yaml: line N: msg" into file:line.
func (f *File) yamlError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, tail, ok := strings.Cut(rest, ":"); ok {
			if line, err := strconv.Atoi(n); err == nil {
				return f.Errorf(line, "%s", strings.TrimSpace(tail))
			}
		}
	}
	return f.Errorf(0, "%s", msg)
}

func (f *File) excludes(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return f.Errorf(n.Line, "exclude: want a list of {path: ..., rules: [...]} entries or paths")
	}
	for _, e := range n.Content {
		switch e.Kind {
		case yaml.ScalarNode:
			f.Excludes = append(f.Excludes, Exclude{Path: e.Value, Line: e.Line})
		case yaml.MappingNode:
			x := Exclude{Line: e.Line}
			for i := 0; i+1 < len(e.Content); i += 2 {
				k, v := e.Content[i], e.Content[i+1]
				switch k.Value {
				case "path":
					if v.Kind != yaml.ScalarNode || v.Value == "" {
						return f.Errorf(v.Line, "exclude path: want a path or pattern")
					}
					x.Path = v.Value
				case "rules":
					val, err := flagValue(v)
					if err != nil {
						return f.Errorf(v.Line, "exclude rules: %v", err)
					}
					for _, r := range strings.Split(val, ",") {
						if r = strings.ToUpper(strings.TrimSpace(r)); r != "" {
							x.Rules = append(x.Rules, r)
						}
					}
				default:
					return f.Errorf(k.Line, "exclude: unknown key %q (want path, rules)", k.Value)
				}
			}
			if x.Path == "" {
				return f.Errorf(e.Line, "exclude: an entry without a path")
			}
			f.Excludes = append(f.Excludes, x)
		default:
			return f.Errorf(e.Line, "exclude: want a path or {path: ..., rules: [...]}")
		}
		if _, err := path.Match(strings.ReplaceAll(f.Excludes[len(f.Excludes)-1].Path, "**", "*"), ""); err != nil {
			return f.Errorf(e.Line, "exclude: bad pattern %q", f.Excludes[len(f.Excludes)-1].Path)
		}
	}
	return nil
}

// coordination reads the coordination tables: a list of {table, version,
// owner, state, why} entries.
func (f *File) coordination(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return f.Errorf(n.Line, "coordination: want a list of {table: ..., version: [...], owner: [...], state: [...], why: ...} entries")
	}
	for _, e := range n.Content {
		if e.Kind != yaml.MappingNode {
			return f.Errorf(e.Line, "coordination: want {table: ..., version: [...], owner: [...], state: [...], why: ...}")
		}
		c := Coordination{Line: e.Line}
		for i := 0; i+1 < len(e.Content); i += 2 {
			k, v := e.Content[i], e.Content[i+1]
			val, err := flagValue(v)
			if err != nil {
				return f.Errorf(v.Line, "coordination %s: %v", k.Value, err)
			}
			var cols []string
			for _, c := range strings.Split(val, ",") {
				if c = strings.ToLower(strings.TrimSpace(c)); c != "" {
					cols = append(cols, c)
				}
			}
			switch k.Value {
			case "table":
				c.Table = strings.ToLower(strings.TrimSpace(val))
			case "version":
				c.Version = cols
			case "owner":
				c.Owner = cols
			case "state":
				c.State = cols
			case "why":
				c.Why = strings.TrimSpace(val)
			default:
				return f.Errorf(k.Line, "coordination: unknown key %q (want table, version, owner, state, why)", k.Value)
			}
		}
		switch {
		case c.Table == "":
			return f.Errorf(e.Line, "coordination: an entry without a table")
		case len(c.Version)+len(c.Owner)+len(c.State) == 0:
			return f.Errorf(e.Line, "coordination: %s names no version, owner or state column to compare", c.Table)
		case c.Why == "":
			return f.Errorf(e.Line, "coordination: %s says nothing of why: name what keeps its writers apart today (why: ...)", c.Table)
		}
		f.Coordination = append(f.Coordination, c)
	}
	return nil
}

// flagValue renders a scalar or a list of scalars in flag syntax.
func flagValue(n *yaml.Node) (string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value, nil
	case yaml.SequenceNode:
		parts := make([]string, 0, len(n.Content))
		for _, e := range n.Content {
			if e.Kind != yaml.ScalarNode {
				return "", errors.New("want a value or a list of values")
			}
			parts = append(parts, e.Value)
		}
		return strings.Join(parts, ","), nil
	}
	return "", fmt.Errorf("want a value or a list of values, not a %s", kindName(n))
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "value"
}

// Excluded reports whether a finding of rule in the file at rel (a
// slash-separated path relative to the module root) is excluded.
func (f *File) Excluded(rel, rule string) bool {
	if f == nil {
		return false
	}
	for _, x := range f.Excludes {
		if (len(x.Rules) == 0 || slices.Contains(x.Rules, rule)) && matchPath(x.Path, rel) {
			return true
		}
	}
	return false
}

// matchPath matches a slash-separated path against a pattern whose
// segments are path.Match patterns or `**` (any number of segments). A
// pattern also matches every path below what it matches.
func matchPath(pattern, rel string) bool {
	pattern = strings.TrimSuffix(strings.TrimPrefix(path.Clean("/"+pattern), "/"), "/")
	return matchSegs(strings.Split(pattern, "/"), strings.Split(rel, "/"))
}

func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if matchSegs(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return true // the pattern matched a directory (or the file) above rel
}

// FindRoot returns the module root for a directory: the nearest ancestor
// (or dir itself) holding go.mod or the configuration file. The search
// never leaves a testdata tree, whose packages are fixtures with roots of
// their own or none. It returns "" when there is none.
func FindRoot(dir string) string {
	dir = filepath.Clean(dir)
	for {
		for _, name := range []string{"go.mod", FileName} {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir || filepath.Base(dir) == "testdata" {
			return ""
		}
		dir = parent
	}
}
