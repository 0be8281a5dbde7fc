package cli

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/celine-eu/governanced/internal/testfs"
)

// readCheckFlags reads a command line of the check's options and an
// environment as every command does: parse, BindEnv, Config.
func readCheckFlags(args []string, env map[string]string, discovery bool, dir string) (CheckConfig, error) {
	var c CheckFlags
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.Declare(fs, discovery)
	if err := fs.Parse(args); err != nil {
		return CheckConfig{}, &UsageError{Msg: err.Error()}
	}
	getenv := func(k string) string { return env[k] }
	if err := BindEnv(fs, getenv); err != nil {
		return CheckConfig{}, err
	}
	return c.Config(&Env{Getenv: getenv, Dir: dir})
}

// TestCheckConfig: each check option from its flag, from its GOVERNANCED_*
// variable, and the overlay name from the library's variable, with the
// precedence every command applies (flag, GOVERNANCED_*, GOVERNANCE_*).
func TestCheckConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want CheckConfig
	}{
		{"nothing", nil, nil, CheckConfig{}},
		{"every flag", []string{"--overlay-dir", "o", "--overlay-name", "prod", "--owners", "a.yaml", "--owners", "b.yaml", "--placeholders", "p.yaml", "--dataspace", "--strict", "--infer-from-dir=false"}, nil,
			CheckConfig{OverlayDir: ptr("o"), OverlayName: ptr("prod"), Owners: []string{"a.yaml", "b.yaml"}, Placeholders: ptr("p.yaml"), Dataspace: true, Strict: true, NoInferFromDir: true}},
		{"every variable", nil, map[string]string{
			"GOVERNANCED_OVERLAY_DIR": "o", "GOVERNANCED_OVERLAY_NAME": "prod", "GOVERNANCED_OWNERS": "a.yaml:b.yaml", "GOVERNANCED_PLACEHOLDERS": "p.yaml",
			"GOVERNANCED_DATASPACE": "true", "GOVERNANCED_STRICT": "1", "GOVERNANCED_INFER_FROM_DIR": "false"},
			CheckConfig{OverlayDir: ptr("o"), OverlayName: ptr("prod"), Owners: []string{"a.yaml", "b.yaml"}, Placeholders: ptr("p.yaml"), Dataspace: true, Strict: true, NoInferFromDir: true}},
		{"the flag over the variable", []string{"--overlay-name", "flag", "--strict=false"}, map[string]string{"GOVERNANCED_OVERLAY_NAME": "var", "GOVERNANCED_STRICT": "true"},
			CheckConfig{OverlayName: ptr("flag")}},
		{"the library's overlay name", nil, map[string]string{"GOVERNANCE_OVERLAY_NAME": "deploy"},
			CheckConfig{OverlayName: ptr("deploy"), Notes: []string{`overlay name "deploy" from GOVERNANCE_OVERLAY_NAME`}}},
		{"governanced's over the library's", nil, map[string]string{"GOVERNANCE_OVERLAY_NAME": "deploy", "GOVERNANCED_OVERLAY_NAME": "prod"},
			CheckConfig{OverlayName: ptr("prod")}},
		{"the flag over the library's", []string{"--overlay-name", "prod"}, map[string]string{"GOVERNANCE_OVERLAY_NAME": "deploy"},
			CheckConfig{OverlayName: ptr("prod")}},
		{"an empty variable is none", nil, map[string]string{"GOVERNANCE_OVERLAY_NAME": "", "GOVERNANCED_OVERLAY_DIR": ""},
			CheckConfig{}},
		{"an empty flag is a value", []string{"--overlay-dir="}, nil, CheckConfig{OverlayDir: ptr("")}},
		{"the library's base-unchanged mode and its name", []string{"--infer-from-dir=false"}, map[string]string{"GOVERNANCE_OVERLAY_NAME": "deploy"},
			CheckConfig{OverlayName: ptr("deploy"), NoInferFromDir: true, Notes: []string{`overlay name "deploy" from GOVERNANCE_OVERLAY_NAME`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readCheckFlags(tc.args, tc.env, false, "")
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestCheckConfigUsageErrors: what no command accepts, whichever way it is
// given.
func TestCheckConfigUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      []string
		env       map[string]string
		discovery bool
	}{
		{"an overlay name with a slash", []string{"--overlay-name", "a/b"}, nil, false},
		{"an empty overlay name", []string{"--overlay-name="}, nil, false},
		{"the library's variable naming ..", nil, map[string]string{"GOVERNANCE_OVERLAY_NAME": ".."}, false},
		{"governanced's variable naming outside", nil, map[string]string{"GOVERNANCED_OVERLAY_NAME": `a\b`}, false},
		{"--overlay-dir twice", []string{"--overlay-dir", "a", "--overlay-dir", "b"}, nil, false},
		{"--overlay-name twice", []string{"--overlay-name", "a", "--overlay-name", "b"}, nil, false},
		{"--placeholders twice", []string{"--placeholders", "a", "--placeholders", "b", "--owners", "o"}, nil, false},
		{"--dataspace without owners", []string{"--dataspace"}, nil, false},
		{"GOVERNANCED_DATASPACE without owners", nil, map[string]string{"GOVERNANCED_DATASPACE": "true"}, false},
		{"--placeholders without owners", []string{"--placeholders", "p"}, nil, false},
		{"a variable that is no boolean", nil, map[string]string{"GOVERNANCED_STRICT": "yes please"}, false},
		{"--discover with an overlay directory", []string{"--discover", "--overlay-dir", "o"}, nil, true},
		{"--discover-app with an overlay name", []string{"--discover-app", "a", "--overlay-name", "prod"}, nil, true},
		{"--discover where it is not declared", []string{"--discover"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readCheckFlags(tc.args, tc.env, tc.discovery, "")
			if _, ok := err.(*UsageError); !ok {
				t.Errorf("err %v, want a usage error", err)
			}
		})
	}
}

// TestDiscoverIsTheLibrary: Discover finds the file celine-utils 2.4.0's
// GovernanceResolver.auto_discover(app_name, project_dir) loads, in the
// same layout and environment. want is the title of the file the library
// loaded ("" for its empty configuration), recorded by running it on this
// layout (PYTHONPATH=celine-utils/src; logging off).
func TestDiscoverIsTheLibrary(t *testing.T) {
	titles := map[string]string{
		"cfg/custom.yaml":                       "config-path",
		"pipelines/apps/meters/governance.yaml": "pipelines-root",
		"apps/meters/governance.yaml":           "cwd-apps",
		"projects/x/governance.yaml":            "project-parent",
		"governance.yaml":                       "cwd",
	}
	files := map[string]string{}
	for p, title := range titles {
		files[p] = "defaults:\n  title: " + title + "\nsources: {}\n"
	}
	dir := testfs.Tree(t, files)
	for _, d := range []string{"apps/dirapp/governance.yaml", "projects/x/dbt"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name        string
		env         map[string]string
		app, proj   string
		libraryRead string
	}{
		{"config path wins", map[string]string{"GOVERNANCE_CONFIG_PATH": "cfg/custom.yaml"}, "meters", "projects/x/dbt", "config-path"},
		{"config path missing, app next", map[string]string{"GOVERNANCE_CONFIG_PATH": "cfg/none.yaml"}, "meters", "", "cwd-apps"},
		{"config path a directory, app next", map[string]string{"GOVERNANCE_CONFIG_PATH": "cfg"}, "meters", "", "cwd-apps"},
		{"app under the working directory", nil, "meters", "", "cwd-apps"},
		{"app under PIPELINES_ROOT", map[string]string{"PIPELINES_ROOT": "pipelines"}, "meters", "", "pipelines-root"},
		{"PIPELINES_ROOT empty", map[string]string{"PIPELINES_ROOT": ""}, "meters", "", "cwd-apps"},
		{"app missing, project next", nil, "nope", "projects/x/dbt", "project-parent"},
		{"app a directory, project next", nil, "dirapp", "projects/x/dbt", "project-parent"},
		{"project dir with a trailing slash", nil, "", "projects/x/dbt/", "project-parent"},
		{"project dir a bare name", nil, "", "dbt", "cwd"},
		{"nothing asked", nil, "", "", ""},
		{"nothing found", map[string]string{"PIPELINES_ROOT": "pipelines"}, "nope", "nowhere/dbt", ""},
		{"config path empty", map[string]string{"GOVERNANCE_CONFIG_PATH": ""}, "", "projects/x/dbt", "project-parent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := Discover(tc.app, tc.proj, func(k string) string { return tc.env[k] }, dir)
			title := ""
			if got != "" {
				for p, tl := range titles {
					if filepath.Clean(got) == filepath.FromSlash(p) {
						title = tl
					}
				}
				if title == "" {
					t.Fatalf("found %q, which is none of the layout's files", got)
				}
			}
			if title != tc.libraryRead {
				t.Errorf("found %q (%s), the library loads %q", got, title, tc.libraryRead)
			}
			// And through the flags, as serve and resolve read them.
			var args []string
			if tc.app != "" {
				args = append(args, "--discover-app", tc.app)
			}
			if tc.proj != "" {
				args = append(args, "--discover-project-dir", tc.proj)
			}
			args = append(args, "--discover")
			cfg, err := readCheckFlags(args, tc.env, true, dir)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Discovered == nil || cfg.Discovered.Path != got || cfg.Discovered.App != tc.app {
				t.Errorf("Config discovered %+v, want %q in app %q", cfg.Discovered, got, tc.app)
			}
		})
	}
}

func ptr(s string) *string { return &s }
