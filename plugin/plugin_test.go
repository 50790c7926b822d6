package plugin_test

import (
	"flag"
	"strings"
	"testing"

	"github.com/golangci/plugin-module-register/register"

	"github.com/dsqllint/dsqllint/analyzer"
	"github.com/dsqllint/dsqllint/plugin"
)

func TestRegistered(t *testing.T) {
	newPlugin, err := register.GetPlugin("dsqllint")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlugin(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.GetLoadMode(); got != register.LoadModeTypesInfo {
		t.Errorf("load mode %q, want %q", got, register.LoadModeTypesInfo)
	}
	as, err := p.BuildAnalyzers()
	if err != nil || len(as) != 1 || as[0].Name != "dsqllint" {
		t.Fatalf("BuildAnalyzers: %v, %v", as, err)
	}
	if as[0] == analyzer.Analyzer {
		t.Error("the plugin shares the package-level analyzer; it must build its own")
	}
}

// settings is what golangci-lint hands the plugin after reading YAML.
func build(t *testing.T, settings any) (map[string]string, error) {
	t.Helper()
	p, err := plugin.New(settings)
	if err != nil {
		return nil, err
	}
	as, _ := p.BuildAnalyzers()
	got := map[string]string{}
	as[0].Flags.VisitAll(func(f *flag.Flag) { got[f.Name] = f.Value.String() })
	return got, nil
}

func TestSettings(t *testing.T) {
	got, err := build(t, map[string]any{
		"dsql-version":   "2026-01",
		"fence-columns":  []any{"range_id", "lease_epoch"},
		"owner-columns":  "worker_id,owner",
		"state-columns":  []any{"status"},
		"expiry-columns": []any{"expires_at"},
		"disable":        []any{"dsql003"},
		"verbose":        true,
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"dsql-version":   "2026-01-31", // a month means its last day
		"fence-columns":  "range_id,lease_epoch",
		"owner-columns":  "worker_id,owner",
		"state-columns":  "status",
		"expiry-columns": "expires_at",
		"disable":        "DSQL003",
		"verbose":        "true",
	} {
		if got[name] != want {
			t.Errorf("%s = %q, want %q", name, got[name], want)
		}
	}
	// The package-level analyzer and a second plugin keep their defaults.
	defaults, err := build(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if defaults["disable"] != "" || defaults["dsql-version"] == got["dsql-version"] {
		t.Errorf("settings leaked into a second plugin: %v", defaults)
	}
	if v := analyzer.Analyzer.Flags.Lookup("dsql-version").Value.String(); v == got["dsql-version"] {
		t.Errorf("settings leaked into analyzer.Analyzer: dsql-version %s", v)
	}
}

// TestEveryFlagIsASetting: settings follow the analyzer's FlagSet, so a flag
// added to the analyzer is a setting without touching the plugin.
func TestEveryFlagIsASetting(t *testing.T) {
	a := analyzer.New()
	a.Flags.VisitAll(func(f *flag.Flag) {
		if _, err := plugin.New(map[string]any{f.Name: f.DefValue}); err != nil {
			t.Errorf("flag -%s with its default %q is not accepted as a setting: %v", f.Name, f.DefValue, err)
		}
	})
}

func TestSettingsErrors(t *testing.T) {
	for _, tc := range []struct {
		settings any
		want     string
	}{
		{map[string]any{"fence_columns": "x"}, `unknown setting "fence_columns"`},
		{map[string]any{"disable": []any{"DSQL999"}}, `setting disable: unknown rule "DSQL999"`},
		{map[string]any{"dsql-version": "next year"}, "setting dsql-version"},
		{map[string]any{"verbose": "maybe"}, "setting verbose"},
		{map[string]any{"fence-columns": map[string]any{"a": "b"}}, "setting fence-columns: unsupported value"},
		{map[string]any{"fence-columns": []any{[]any{"a"}}}, "nested list"},
		{"not a map", "decoding settings"},
	} {
		_, err := plugin.New(tc.settings)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "dsqllint: ") {
			t.Errorf("New(%v) = %v, want an error containing %q", tc.settings, err, tc.want)
		}
	}
}
