package plugin

import (
	"flag"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/dsqllint/dsqllint/analyzer"
)

// Name is the linter's name in golangci-lint: the key under
// linters.settings.custom and the name //nolint comments use.
const Name = "dsqllint"

func init() {
	register.Plugin(Name, New)
}

// Plugin is one configured dsqllint linter.
type Plugin struct {
	analyzer *analysis.Analyzer
}

// New builds a fresh analyzer (analyzer.New) and applies settings to its
// flags. settings is what golangci-lint read from
// linters.settings.custom.dsqllint.settings: nil, or a map from flag name
// to a string, bool, number or list of those.
func New(settings any) (register.LinterPlugin, error) {
	a := analyzer.New()
	if err := Apply(a, settings); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return &Plugin{analyzer: a}, nil
}

// BuildAnalyzers returns the configured analyzer.
func (p *Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return []*analysis.Analyzer{p.analyzer}, nil
}

// GetLoadMode asks for type information: dsqllint resolves called
// functions and constant values with go/types.
func (p *Plugin) GetLoadMode() string { return register.LoadModeTypesInfo }

// Apply sets a's flags from golangci-lint settings. Keys are flag names;
// an unknown key or a value the flag rejects is an error. Keys are applied
// in sorted order so that errors are deterministic.
func Apply(a *analysis.Analyzer, settings any) error {
	m, err := register.DecodeSettings[map[string]any](settings)
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if a.Flags.Lookup(k) == nil {
			return fmt.Errorf("unknown setting %q (known: %s)", k, strings.Join(settingNames(a), ", "))
		}
		v, err := flagValue(m[k])
		if err != nil {
			return fmt.Errorf("setting %s: %w", k, err)
		}
		if err := a.Flags.Set(k, v); err != nil {
			return fmt.Errorf("setting %s: %w", k, err)
		}
	}
	return nil
}

// settingNames lists the analyzer's flags: the settings it accepts.
func settingNames(a *analysis.Analyzer) []string {
	var names []string
	a.Flags.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// flagValue renders one decoded YAML/JSON value as a flag string.
func flagValue(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case bool:
		return strconv.FormatBool(v), nil
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	case []any:
		parts := make([]string, 0, len(v))
		for _, e := range v {
			if _, ok := e.([]any); ok {
				return "", fmt.Errorf("nested list %v", v)
			}
			s, err := flagValue(e)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ","), nil
	}
	return "", fmt.Errorf("unsupported value %v (%T): use a string, a boolean, a number or a list of those", v, v)
}
