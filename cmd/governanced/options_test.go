package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/testfs"
)

// optionsTree is one app with an overlay named after it, one named for a
// deployment, and an overlay directory beside the tree: which of them the
// app is served with says how the overlay options were read. Each file's
// defaults.title names it.
var optionsTree = map[string]string{
	"apps/meters/governance.yaml":        "defaults:\n  title: base\n  row_filters: []\nsources:\n  ds.m: {}\n",
	"apps/meters/governance.meters.yaml": "defaults:\n  title: meters\n",
	"apps/meters/governance.deploy.yaml": "defaults:\n  title: deploy\n",
	"overlays/governance.meters.yaml":    "defaults:\n  title: dir\n",
	"owners.yaml":                        "owners:\n  - {id: acme, type: schema:Organization, name: Acme, url: https://acme.example}\n",
	"placeholders.yaml":                  "operator: acme\n",
}

// effective is what a command line should have asked the check.
type effective struct {
	overlayName, overlayDir, placeholders string
	owners                                []string
	dataspace, strict, noInfer            bool
}

func (e effective) inputs() snapshot.Inputs {
	return snapshot.Inputs{Trees: []string{"."}, OverlayName: e.overlayName, OverlayDir: e.overlayDir, Owners: e.owners,
		Placeholders: e.placeholders, Dataspace: e.dataspace, Strict: e.strict, NoInferFromDir: e.noInfer}
}

// TestCheckOptionsInEveryCommand is the table of the check's shared options
// and environment variables (cli.CheckFlags) for every command that checks
// a tree: validate, serve, resolve and diff, run in the tree. Each row gives
// options as flags or variables; every command must ask the check the same
// (validate's report echoes it, the others' revision hashes it) and serve
// the same overlay. The first rows are celine-utils 2.4.0's
// from_file_with_override(base, overlay_name, infer_from_dir=…) on this
// app, with GOVERNANCE_OVERLAY_NAME set or not: title is the defaults.title
// of what the library returned, recorded by running it on this layout.
// optionsCase is a command line and environment, the check options they
// come to, and the title of the overlay served with them.
type optionsCase struct {
	name  string
	args  []string
	env   map[string]string
	want  effective
	title string // "" when the check fails (the tree is not served)
}

func TestCheckOptionsInEveryCommand(t *testing.T) {
	t.Chdir(testfs.Tree(t, optionsTree))
	for _, tc := range optionsCases() {
		t.Run(tc.name, func(t *testing.T) {
			rev, _, err := (&snapshot.Loader{Inputs: tc.want.inputs()}).Revision(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			getenv := func(k string) string { return tc.env[k] }
			run := func(t *testing.T, args ...string) (int, []byte) {
				t.Helper()
				var stdout, stderr bytes.Buffer
				code := run(context.Background(), append(args, tc.args...), getenv, &stdout, &stderr)
				if code == 2 {
					t.Fatalf("%v: a usage error: %s", args, stderr.String())
				}
				return code, stdout.Bytes()
			}
			t.Run("validate", func(t *testing.T) { validateWithOptions(t, tc, run) })
			t.Run("resolve", func(t *testing.T) { resolveWithOptions(t, tc, rev, run) })
			t.Run("diff", func(t *testing.T) { diffWithOptions(t, tc, rev, run) })
			t.Run("serve", func(t *testing.T) { serveWithOptions(t, tc, rev, getenv) })
		})
	}
}

// runWith runs a command with a case's command line and environment.
type runWith func(t *testing.T, args ...string) (code int, stdout []byte)

// optionsCases are the library's from_file_with_override answers, then
// governanced's own variables and the other options.
func optionsCases() []optionsCase {
	noInfer := []string{"--infer-from-dir=false"}
	return []optionsCase{
		// from_file_with_override, as the library answers.
		{"inferred", nil, nil, effective{}, "meters"},
		{"base unchanged", noInfer, nil, effective{noInfer: true}, "base"},
		{"a name", append([]string{"--overlay-name", "deploy"}, noInfer...), nil, effective{overlayName: "deploy", noInfer: true}, "deploy"},
		{"a name, inferring", []string{"--overlay-name", "deploy"}, nil, effective{overlayName: "deploy"}, "deploy"},
		{"the variable", noInfer, map[string]string{"GOVERNANCE_OVERLAY_NAME": "deploy"}, effective{overlayName: "deploy", noInfer: true}, "deploy"},
		{"the variable, inferring", nil, map[string]string{"GOVERNANCE_OVERLAY_NAME": "deploy"}, effective{overlayName: "deploy"}, "deploy"},
		{"the name over the variable", append([]string{"--overlay-name", "meters"}, noInfer...), map[string]string{"GOVERNANCE_OVERLAY_NAME": "deploy"}, effective{overlayName: "meters", noInfer: true}, "meters"},
		{"an empty variable, inferring", nil, map[string]string{"GOVERNANCE_OVERLAY_NAME": ""}, effective{}, "meters"},
		{"an empty variable", noInfer, map[string]string{"GOVERNANCE_OVERLAY_NAME": ""}, effective{noInfer: true}, "base"},
		{"a name with no file", []string{"--overlay-name", "nope"}, nil, effective{overlayName: "nope"}, "base"},
		{"the variable with no file", nil, map[string]string{"GOVERNANCE_OVERLAY_NAME": "nope"}, effective{overlayName: "nope"}, "base"},
		// governanced's own variables and the other options.
		{"GOVERNANCED_OVERLAY_NAME over the library's", nil, map[string]string{"GOVERNANCED_OVERLAY_NAME": "meters", "GOVERNANCE_OVERLAY_NAME": "deploy"}, effective{overlayName: "meters"}, "meters"},
		{"GOVERNANCED_INFER_FROM_DIR", nil, map[string]string{"GOVERNANCED_INFER_FROM_DIR": "false"}, effective{noInfer: true}, "base"},
		{"--overlay-dir", append([]string{"--overlay-dir", "overlays"}, noInfer...), nil, effective{overlayDir: "overlays", noInfer: true}, "dir"},
		{"GOVERNANCED_OVERLAY_DIR", nil, map[string]string{"GOVERNANCED_OVERLAY_DIR": "overlays", "GOVERNANCED_INFER_FROM_DIR": "0"}, effective{overlayDir: "overlays", noInfer: true}, "dir"},
		{"an overlay directory and the inferred overlay conflict", []string{"--overlay-dir", "overlays"}, nil, effective{overlayDir: "overlays"}, ""},
		{"--owners, --placeholders", []string{"--owners", "owners.yaml", "--placeholders", "placeholders.yaml"}, nil, effective{owners: []string{"owners.yaml"}, placeholders: "placeholders.yaml"}, "meters"},
		{"GOVERNANCED_OWNERS, GOVERNANCED_DATASPACE", nil, map[string]string{"GOVERNANCED_OWNERS": "owners.yaml:owners.yaml", "GOVERNANCED_DATASPACE": "true"}, effective{owners: []string{"owners.yaml", "owners.yaml"}, dataspace: true}, "meters"},
		{"--strict fails on the unused overlay", []string{"--strict"}, nil, effective{strict: true}, ""},
		{"GOVERNANCED_STRICT, with nothing unused", append([]string{"--overlay-name", "deploy"}, noInfer...), map[string]string{"GOVERNANCED_STRICT": "true", "GOVERNANCED_OVERLAY_NAME": "x"}, effective{overlayName: "deploy", noInfer: true, strict: true}, ""},
	}
}

// validateWithOptions: the report names the inputs the case comes to.
func validateWithOptions(t *testing.T, tc optionsCase, run runWith) {
	code, out := run(t, "validate", "apps/*", "--format", "json")
	var rep check.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	want := check.Inputs{Paths: []string{"apps/*"}, Owners: tc.want.owners, Dataspace: tc.want.dataspace, InferFromDir: !tc.want.noInfer}
	if want.Owners == nil {
		want.Owners = []string{}
	}
	for p, v := range map[**string]string{&want.OverlayName: tc.want.overlayName, &want.OverlayDir: tc.want.overlayDir, &want.Placeholders: tc.want.placeholders} {
		if v != "" {
			*p = &v
		}
	}
	if d := cmp.Diff(want, rep.Inputs); d != "" || rep.Strict != tc.want.strict {
		t.Errorf("inputs (-want +got):\n%s\nstrict %v", d, rep.Strict)
	}
	if got := servedTitle(rep); (code == 0) != (tc.title != "") || (tc.title != "" && got != tc.title) {
		t.Errorf("exit %d serving %q, want %q", code, got, tc.title)
	}
}

// resolveWithOptions: resolve answers from the case's revision and
// overlay.
func resolveWithOptions(t *testing.T, tc optionsCase, rev string, run runWith) {
	code, out := run(t, "resolve", "--tree", ".", "--app", "meters", "ds.none")
	if tc.title == "" {
		if code != 1 {
			t.Errorf("exit %d, want 1: the tree fails its check", code)
		}
		return
	}
	var body struct {
		Revision string `json:"revision"`
		Rule     struct {
			Title string `json:"title"`
		} `json:"rule"`
	}
	if err := json.Unmarshal(out, &body); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	if body.Revision != rev || body.Rule.Title != tc.title {
		t.Errorf("revision %s, title %q; want %s, %q", body.Revision, body.Rule.Title, rev, tc.title)
	}
}

// diffWithOptions: diff reads both sides with the case's options.
func diffWithOptions(t *testing.T, tc optionsCase, rev string, run runWith) {
	code, out := run(t, "diff", "--base", ".", "--head", ".", "--format", "json")
	var rep struct {
		Base, Head struct {
			Revision string `json:"revision"`
			OK       bool   `json:"ok"`
		}
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	if rep.Head.Revision != rev || rep.Base.Revision != rev || rep.Head.OK != (tc.title != "") {
		t.Errorf("revisions %s, %s, ok %v; want %s, %v", rep.Base.Revision, rep.Head.Revision, rep.Head.OK, rev, tc.title != "")
	}
}

// serveWithOptions: serve serves the case's revision and overlay, or
// refuses to start on a tree that fails its check.
func serveWithOptions(t *testing.T, tc optionsCase, rev string, getenv func(string) string) {
	args := append([]string{"--tree", "."}, tc.args...)
	if tc.title == "" {
		var stderr syncBuffer
		err := runE(context.Background(), append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), getenv, &bytes.Buffer{}, &stderr)
		if code := exitCode(err, &bytes.Buffer{}); code != 1 || !strings.Contains(stderr.String(), "the tree failed its check") {
			t.Errorf("exit %d, want 1 with the report:\n%s", code, stderr.String())
		}
		return
	}
	s := startServe(t, tc.env, args...)
	defer s.stop()
	var status struct {
		Revision string `json:"revision"`
	}
	var app struct {
		Defaults struct {
			Title string `json:"title"`
		} `json:"defaults"`
	}
	var rep check.Report
	s.getJSON(t, "/status", &status)
	s.getJSON(t, "/apps/meters", &app)
	s.getJSON(t, "/report", &rep)
	if status.Revision != rev || app.Defaults.Title != tc.title || rep.Strict != tc.want.strict || rep.Inputs.InferFromDir == tc.want.noInfer {
		t.Errorf("revision %s, title %q, report %+v strict %v; want %s, %q", status.Revision, app.Defaults.Title, rep.Inputs, rep.Strict, rev, tc.title)
	}
}

// servedTitle is which of optionsTree's files the app is served with, by
// the report: the overlay candidate not reported unused, else the base.
func servedTitle(rep check.Report) string {
	unused := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Code == check.CodeOverlayUnused {
			unused[f.File] = true
		}
	}
	title := "base"
	for file, tl := range map[string]string{
		"apps/meters/governance.meters.yaml": "meters",
		"apps/meters/governance.deploy.yaml": "deploy",
		"overlays/governance.meters.yaml":    "dir",
	} {
		if !unused[file] && (rep.Inputs.OverlayDir != nil || !strings.HasPrefix(file, "overlays/")) {
			title = tl
		}
	}
	return title
}

// TestDiscoverInServeAndResolve: --discover serves and resolves in the file
// the library's auto_discover loads (cli.TestDiscoverIsTheLibrary holds the
// order to the library), alone: no overlay beside it applies, even one the
// library's variable names. Nothing found resolves to the empty rule, as
// the library's empty configuration does; serve refuses to start on it.
func TestDiscoverInServeAndResolve(t *testing.T) {
	t.Chdir(testfs.Tree(t, map[string]string{
		"pipelines/apps/meters/governance.yaml":        "defaults:\n  title: pipelines-root\n  row_filters: []\nsources:\n  ds.m: {access_level: open}\n",
		"pipelines/apps/meters/governance.meters.yaml": "defaults:\n  title: overlay\n",
		"cfg/custom.yaml":                              "defaults:\n  title: config-path\n  row_filters: []\nsources: {}\n",
	}))
	for _, tc := range []struct {
		name  string
		args  []string
		env   map[string]string
		app   string // the app it is served as
		title string // "" for nothing found
	}{
		{"PIPELINES_ROOT and an app", []string{"--discover-app", "meters"}, map[string]string{"PIPELINES_ROOT": "pipelines", "GOVERNANCE_OVERLAY_NAME": "meters"}, "meters", "pipelines-root"},
		{"GOVERNANCE_CONFIG_PATH first", []string{"--discover", "--discover-app", "meters"}, map[string]string{"PIPELINES_ROOT": "pipelines", "GOVERNANCE_CONFIG_PATH": "cfg/custom.yaml"}, "meters", "config-path"},
		{"GOVERNANCE_CONFIG_PATH, no app: named after its directory", nil, map[string]string{"GOVERNANCED_DISCOVER": "true", "GOVERNANCE_CONFIG_PATH": "cfg/custom.yaml"}, "cfg", "config-path"},
		{"nothing found", []string{"--discover-app", "meters"}, nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string { return tc.env[k] }
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"resolve", "ds.m"}, tc.args...), getenv, &stdout, &stderr)
			var body struct {
				Revision *string `json:"revision"`
				App      *string `json:"app"`
				Match    struct {
					Kind string `json:"kind"`
				} `json:"match"`
				Rule map[string]any `json:"rule"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &body); code != 0 || err != nil {
				t.Fatalf("resolve: exit %d (%v)\n%s%s", code, err, stdout.String(), stderr.String())
			}
			if tc.title == "" {
				if body.Revision != nil || body.App != nil || body.Match.Kind != "defaults" || len(body.Rule) != 0 || !strings.Contains(stderr.String(), "no governance file found") {
					t.Errorf("nothing found: %s, stderr %q; want the empty rule and a note", stdout.String(), stderr.String())
				}
			} else if body.App == nil || *body.App != tc.app || body.Rule["title"] != tc.title {
				t.Errorf("resolve: %s; want app %s, title %s", stdout.String(), tc.app, tc.title)
			}

			if tc.title == "" {
				err := runE(context.Background(), append([]string{"serve", "--addr", "127.0.0.1:0"}, tc.args...), getenv, &bytes.Buffer{}, &bytes.Buffer{})
				if code := exitCode(err, &bytes.Buffer{}); code != 1 || !strings.Contains(err.Error(), "no governance file") {
					t.Errorf("serve: exit %d (%v), want 1: not starting on nothing", code, err)
				}
				return
			}
			s := startServe(t, tc.env, tc.args...)
			defer s.stop()
			var app struct {
				Name     string `json:"name"`
				Defaults struct {
					Title string `json:"title"`
				} `json:"defaults"`
			}
			if st := s.getJSON(t, "/apps/"+tc.app, &app); st != 200 || app.Defaults.Title != tc.title {
				t.Errorf("serve: /apps/%s %d %+v, want title %s", tc.app, st, app, tc.title)
			}
		})
	}
	t.Run("--discover and --tree", func(t *testing.T) {
		var stderr bytes.Buffer
		if code := run(context.Background(), []string{"resolve", "x", "--discover", "--tree", "."}, func(string) string { return "" }, &bytes.Buffer{}, &stderr); code != 2 {
			t.Errorf("exit %d, want a usage error: %s", code, stderr.String())
		}
	})
}
