package governance

import (
	"path/filepath"
	"testing"

	"github.com/celine-eu/governanced/internal/testfs"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// TestLoadWithOverlay is examples.md E12: which overlay a base gets.
func TestLoadWithOverlay(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"apps/grid/governance.yaml":      "defaults: {title: base}\nsources: {}\n",
		"apps/grid/governance.prod.yaml": "defaults: {title: prod}\n",
		"apps/grid/governance.grid.yaml": "defaults: {title: grid}\n",
		"other/governance.yaml":          "defaults: {title: escaped}\n",
		"governance.yaml":                "defaults: {title: root}\n",
	})
	base := filepath.Join(dir, "apps/grid/governance.yaml")
	tests := []struct {
		name  string
		opts  OverlayOptions
		title string
	}{
		{"named", OverlayOptions{Name: "prod", Getenv: env(map[string]string{"GOVERNANCE_OVERLAY_NAME": "grid"}), InferFromDir: true}, "prod"},
		{"from the environment", OverlayOptions{Getenv: env(map[string]string{"GOVERNANCE_OVERLAY_NAME": "prod"}), InferFromDir: true}, "prod"},
		{"empty name falls through to the environment", OverlayOptions{Name: "", Getenv: env(map[string]string{"GOVERNANCE_OVERLAY_NAME": "prod"})}, "prod"},
		{"inferred from the directory", OverlayOptions{Getenv: env(nil), InferFromDir: true}, "grid"},
		{"empty environment falls through to inference", OverlayOptions{Getenv: env(map[string]string{"GOVERNANCE_OVERLAY_NAME": ""}), InferFromDir: true}, "grid"},
		{"no name: base alone", OverlayOptions{Getenv: env(nil)}, "base"},
		{"missing overlay is not an error", OverlayOptions{Name: "staging", Getenv: env(nil)}, "base"},
		{"a separator never names an overlay", OverlayOptions{Name: "../other", Getenv: env(nil)}, "base"},
		{"dot-dot never names an overlay", OverlayOptions{Name: "..", Getenv: env(nil)}, "base"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := LoadWithOverlay(base, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := cfg.Defaults.Title(); got != tt.title {
				t.Errorf("title = %q, want %q", got, tt.title)
			}
		})
	}

	t.Run("no directory part: nothing inferred", func(t *testing.T) {
		if name := OverlayName("governance.yaml", OverlayOptions{Getenv: env(nil), InferFromDir: true}); name != "" {
			t.Errorf("inferred %q from a bare file name", name)
		}
	})
	t.Run("missing base is an error naming the path", func(t *testing.T) {
		missing := filepath.Join(dir, "apps/nope/governance.yaml")
		_, err := LoadWithOverlay(missing, OverlayOptions{Getenv: env(nil)})
		if ErrorClass(err) != ClassNotFound {
			t.Fatalf("err = %v, want not_found", err)
		}
		if ge := err.(*Error); ge.File != missing {
			t.Errorf("error names %q, want %q", ge.File, missing)
		}
	})
	t.Run("provenance names the overlay layer", func(t *testing.T) {
		cfg, err := LoadWithOverlay(base, OverlayOptions{Name: "prod", Getenv: env(nil)})
		if err != nil {
			t.Fatal(err)
		}
		if l := cfg.Defaults.Origin(FieldTitle).Layer; l == nil || l.Kind != "overlay" || l.File != filepath.Join(dir, "apps/grid/governance.prod.yaml") {
			t.Errorf("title origin layer = %+v", l)
		}
	})
}

func TestLoadFileErrors(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"bad.yaml":   "sources:\n  ds.a:\n    title: 2024\n",
		"empty.yaml": "",
	})
	if _, err := LoadFile(dir); ErrorClass(err) != ClassNotFound {
		t.Errorf("a directory: %v, want not_found", err)
	}
	_, err := LoadFile(filepath.Join(dir, "bad.yaml"))
	ge, ok := err.(*Error)
	if !ok || ge.Class != ClassValidation || ge.Line != 3 || ge.Path != "sources/ds.a/title" || ge.File != filepath.Join(dir, "bad.yaml") {
		t.Errorf("bad.yaml: %#v, want a validation error at line 3, sources/ds.a/title", err)
	}
	cfg, err := LoadFile(filepath.Join(dir, "empty.yaml"))
	if err != nil || len(cfg.Sources) != 0 || !cfg.Active {
		t.Errorf("empty file: %v %+v, want the empty document", err, cfg)
	}
}

// TestAutoDiscover follows governance-format.md §9.3's order.
func TestAutoDiscover(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"explicit.yaml":               "defaults: {title: explicit}\n",
		"apps/grid/governance.yaml":   "defaults: {title: app}\n",
		"project/governance.yaml":     "defaults: {title: beside-project}\n",
		"project/dbt/dbt_project.yml": "name: x\n",
		"apps/empty/governance.tmp":   "",
	})
	tests := []struct {
		name         string
		app, project string
		vars         map[string]string
		title        string // "" for the empty configuration
		wantNote     bool
	}{
		{"GOVERNANCE_CONFIG_PATH first", "grid", "", map[string]string{"GOVERNANCE_CONFIG_PATH": filepath.Join(dir, "explicit.yaml"), "PIPELINES_ROOT": dir}, "explicit", false},
		{"a config path that is no file warns and continues", "grid", "", map[string]string{"GOVERNANCE_CONFIG_PATH": filepath.Join(dir, "nope.yaml"), "PIPELINES_ROOT": dir}, "app", true},
		{"the app under PIPELINES_ROOT", "grid", "", map[string]string{"PIPELINES_ROOT": dir}, "app", false},
		{"beside the project directory, trailing separator ignored", "", filepath.Join(dir, "project", "dbt") + "/", nil, "beside-project", false},
		{"nothing found is the empty configuration", "nope", "", map[string]string{"PIPELINES_ROOT": dir}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := AutoDiscover(tt.app, tt.project, env(tt.vars))
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := d.Config.Defaults.Title(); got != tt.title {
				t.Errorf("title = %q, want %q", got, tt.title)
			}
			if tt.wantNote && len(d.Notes) == 0 {
				t.Error("want a note a caller can log")
			}
		})
	}
}
