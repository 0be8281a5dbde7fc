package deploy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

// The repository's GitHub Action (action.yml, a composite action) is run
// here the way a runner runs it: each step in order, `${{ }}` expressions
// evaluated against the inputs (defaults overlaid by the test's), the step
// outputs and the github and runner contexts; `run:` steps with bash as the
// runner invokes it, in a workspace laid out like the repository under test;
// GITHUB_OUTPUT, GITHUB_PATH, GITHUB_ENV and GITHUB_STEP_SUMMARY honoured.
// The two `uses:` steps are stood in for: actions/cache by a cache kept in
// the test process (saved after a successful run, as the action's post step
// does), actions/setup-go by the Go toolchain running the tests.

type actionFile struct {
	Name        string                  `yaml:"name"`
	Description string                  `yaml:"description"`
	Inputs      map[string]actionInput  `yaml:"inputs"`
	Outputs     map[string]actionOutput `yaml:"outputs"`
	Runs        struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionInput struct {
	Description string `yaml:"description"`
	Required    bool   `yaml:"required"`
	Default     string `yaml:"default"`
}

type actionOutput struct {
	Description string `yaml:"description"`
	Value       string `yaml:"value"`
}

type actionStep struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Shell string            `yaml:"shell"`
	Run   string            `yaml:"run"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
}

func loadAction(t *testing.T) *actionFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var a actionFile
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return &a
}

var expression = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// TestActionDefinition holds action.yml to the rules a runner does not
// enforce but a safe and predictable action keeps.
func TestActionDefinition(t *testing.T) {
	a := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", a.Runs.Using)
	}
	for name, in := range a.Inputs {
		if in.Description == "" {
			t.Errorf("input %s has no description", name)
		}
	}
	ids := map[string]bool{}
	for _, s := range a.Runs.Steps {
		if s.ID != "" {
			ids[s.ID] = true
		}
	}
	refs := func(where, text string) {
		for _, m := range expression.FindAllStringSubmatch(text, -1) {
			for _, ref := range regexp.MustCompile(`\b(inputs|steps)\.([\w-]+)`).FindAllStringSubmatch(m[1], -1) {
				if ref[1] == "inputs" && a.Inputs[ref[2]].Description == "" {
					t.Errorf("%s: refers to input %q, which is not declared", where, ref[2])
				}
				if ref[1] == "steps" && !ids[ref[2]] {
					t.Errorf("%s: refers to step %q, which no step has as its id", where, ref[2])
				}
			}
		}
	}
	for name, out := range a.Outputs {
		refs("output "+name, out.Value)
	}
	for _, s := range a.Runs.Steps {
		where := "step " + s.Name
		refs(where, s.If)
		for _, v := range s.Env {
			refs(where, v)
		}
		for _, v := range s.With {
			refs(where, v)
		}
		switch {
		case s.Uses != "":
			if !regexp.MustCompile(`^[\w.-]+/[\w.-]+@v\d+$`).MatchString(s.Uses) {
				t.Errorf("%s: uses %q is not an action pinned to a major version", where, s.Uses)
			}
		case s.Shell != "bash":
			t.Errorf("%s: shell %q, want bash", where, s.Shell)
		case strings.Contains(s.Run, "${{"):
			// Inputs reach a script through env only: an expression in the
			// script's text would let an input inject shell code.
			t.Errorf("%s: its script holds an expression; pass it through env", where)
		}
		for _, banned := range []string{"python", "@latest"} {
			if strings.Contains(s.Run, banned) || strings.Contains(s.Uses, banned) {
				t.Errorf("%s: uses %s", where, banned)
			}
		}
	}
}

// actionCache stands in for actions/cache: key → a saved copy of the path.
type actionCache struct {
	mu    sync.Mutex
	dir   string
	saved map[string]string
}

func newActionCache(t *testing.T) *actionCache {
	return &actionCache{dir: t.TempDir(), saved: map[string]string{}}
}

// sharedCache lets the tests of this package build governanced once.
var sharedCache struct {
	once  sync.Once
	cache *actionCache
}

func shared(t *testing.T) *actionCache {
	sharedCache.once.Do(func() {
		dir, err := os.MkdirTemp("", "governanced-action-cache-")
		if err != nil {
			t.Fatal(err)
		}
		sharedCache.cache = &actionCache{dir: dir, saved: map[string]string{}}
	})
	return sharedCache.cache
}

// actionRun is what one run of the action left.
type actionRun struct {
	ok       bool
	failed   string            // the name of the step that failed
	ran      []string          // the names of the steps that ran
	outputs  map[string]string // the action's outputs
	log      string            // every step's output
	summary  string            // the job summary
	skipped  []string          // the names of the steps whose if was false
	failedRC int
}

// runAction runs action.yml in workspace with the given inputs.
func runAction(t *testing.T, cache *actionCache, workspace string, with map[string]string) *actionRun {
	t.Helper()
	a := loadAction(t)
	inputs := map[string]string{}
	for name, in := range a.Inputs {
		inputs[name] = in.Default
	}
	for name, v := range with {
		if _, ok := a.Inputs[name]; !ok {
			t.Fatalf("the action has no input %q", name)
		}
		inputs[name] = v
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the Go toolchain is not on PATH: %v", err)
	}
	basePath := "/usr/bin:/bin"
	for _, tool := range []string{"bash", "jq", "find", "sha256sum", "git"} {
		if _, err := lookPathIn(tool, basePath); err != nil {
			t.Fatalf("%s is not in %s: the action's steps need it (GitHub's runners have it)", tool, basePath)
		}
	}
	if p, err := lookPathIn("governanced", basePath); err == nil {
		t.Fatalf("%s is on the base PATH: the test could not tell it from the one the action builds", p)
	}

	temp := t.TempDir()
	steps := map[string]map[string]string{}
	var pathDirs []string // from GITHUB_PATH, latest first
	jobEnv := map[string]string{}
	var saves [][2]string // cache key, path: saved after a successful run
	run := &actionRun{outputs: map[string]string{}}
	var log, summary strings.Builder

	eval := func(expr string) string {
		switch parts := strings.Split(expr, "."); {
		case len(parts) == 2 && parts[0] == "inputs":
			v, ok := inputs[parts[1]]
			if !ok {
				t.Fatalf("expression %q: no such input", expr)
			}
			return v
		case expr == "github.action_path":
			return moduleRoot(t)
		case expr == "github.workspace":
			return workspace
		case expr == "runner.temp":
			return temp
		case expr == "runner.os":
			return "Linux"
		case expr == "runner.arch":
			return "X64"
		case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
			return steps[parts[1]][parts[3]]
		default:
			t.Fatalf("expression %q: this runner stand-in does not evaluate it", expr)
			return ""
		}
	}
	substitute := func(s string) string {
		return expression.ReplaceAllStringFunc(s, func(m string) string {
			return eval(expression.FindStringSubmatch(m)[1])
		})
	}
	condition := func(s string) bool {
		if s == "" {
			return true
		}
		s = strings.TrimSpace(s)
		if m := expression.FindStringSubmatch(s); m != nil && m[0] == s {
			s = m[1]
		}
		m := regexp.MustCompile(`^([\w.-]+)\s*(==|!=)\s*'([^']*)'$`).FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("if: %q: this runner stand-in evaluates only REF == 'text' and REF != 'text'", s)
		}
		return (eval(m[1]) == m[3]) == (m[2] == "==")
	}

	for _, s := range a.Runs.Steps {
		if !condition(s.If) {
			run.skipped = append(run.skipped, s.Name)
			continue
		}
		run.ran = append(run.ran, s.Name)
		with := map[string]string{}
		for k, v := range s.With {
			with[k] = substitute(v)
		}
		switch {
		case strings.HasPrefix(s.Uses, "actions/cache@"):
			key, path := with["key"], with["path"]
			if key == "" || path == "" || strings.HasSuffix(key, "-") {
				t.Fatalf("%s: actions/cache with key %q and path %q", s.Name, key, path)
			}
			cache.mu.Lock()
			saved, hit := cache.saved[key]
			cache.mu.Unlock()
			if hit {
				if err := os.CopyFS(path, os.DirFS(saved)); err != nil {
					t.Fatal(err)
				}
			} else {
				saves = append(saves, [2]string{key, path})
			}
			steps[s.ID] = map[string]string{"cache-hit": fmt.Sprint(hit)}
		case strings.HasPrefix(s.Uses, "actions/setup-go@"):
			if f := with["go-version-file"]; f != "" {
				if _, err := os.Stat(f); err != nil {
					t.Fatalf("%s: go-version-file: %v", s.Name, err)
				}
			}
			pathDirs = append([]string{filepath.Dir(goBin)}, pathDirs...)
		case s.Uses != "":
			t.Fatalf("%s: this runner stand-in does not run %s", s.Name, s.Uses)
		default:
			files := map[string]string{}
			for _, f := range []string{"GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_ENV", "GITHUB_STEP_SUMMARY"} {
				files[f] = filepath.Join(temp, fmt.Sprintf("%s-%d", strings.ToLower(f), len(run.ran)))
				if err := os.WriteFile(files[f], nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			script := filepath.Join(temp, fmt.Sprintf("step-%d.sh", len(run.ran)))
			if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
			cmd.Path, _ = lookPathIn("bash", basePath)
			cmd.Dir = workspace
			env := []string{}
			for _, e := range os.Environ() {
				if !strings.HasPrefix(e, "PATH=") && !strings.HasPrefix(e, "GITHUB_") {
					env = append(env, e)
				}
			}
			env = append(env,
				"PATH="+strings.Join(append(slices.Clone(pathDirs), basePath), ":"),
				"CI=true", "GITHUB_ACTIONS=true",
				"GITHUB_WORKSPACE="+workspace, "GITHUB_ACTION_PATH="+moduleRoot(t), "RUNNER_TEMP="+temp)
			for f, p := range files {
				env = append(env, f+"="+p)
			}
			for k, v := range jobEnv {
				env = append(env, k+"="+v)
			}
			for k, v := range s.Env {
				env = append(env, k+"="+substitute(v))
			}
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			fmt.Fprintf(&log, "::group::%s\n%s::endgroup::\n", s.Name, out)

			outputs := readKeyValues(t, files["GITHUB_OUTPUT"])
			if s.ID != "" {
				steps[s.ID] = outputs
			}
			for k, v := range readKeyValues(t, files["GITHUB_ENV"]) {
				jobEnv[k] = v
			}
			for _, line := range readLines(t, files["GITHUB_PATH"]) {
				pathDirs = append([]string{line}, pathDirs...)
			}
			b, _ := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
			summary.Write(b)
			if err != nil {
				run.failed = s.Name
				if ee, ok := err.(*exec.ExitError); ok {
					run.failedRC = ee.ExitCode()
				}
			}
		}
		if run.failed != "" {
			break
		}
	}
	for name, out := range a.Outputs {
		run.outputs[name] = substitute(out.Value)
	}
	run.ok = run.failed == ""
	run.log, run.summary = log.String(), summary.String()
	if run.ok {
		for _, s := range saves {
			dst := filepath.Join(cache.dir, fmt.Sprint(len(cache.saved)), "save")
			if err := os.CopyFS(dst, os.DirFS(s[1])); err != nil {
				t.Fatalf("saving the cache %s: %v", s[0], err)
			}
			cache.mu.Lock()
			cache.saved[s[0]] = dst
			cache.mu.Unlock()
		}
	}
	return run
}

// readKeyValues reads a GITHUB_OUTPUT or GITHUB_ENV file: name=value lines
// and name<<DELIMITER blocks.
func readKeyValues(t *testing.T, file string) map[string]string {
	t.Helper()
	kv := map[string]string{}
	lines := readLines(t, file)
	for i := 0; i < len(lines); i++ {
		if name, delim, ok := strings.Cut(lines[i], "<<"); ok && !strings.Contains(name, "=") {
			var value []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				value = append(value, lines[i])
			}
			kv[name] = strings.Join(value, "\n")
			continue
		}
		name, value, ok := strings.Cut(lines[i], "=")
		if !ok {
			t.Fatalf("%s: line %q is neither name=value nor name<<DELIMITER", file, lines[i])
		}
		kv[name] = value
	}
	return kv
}

func readLines(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

func lookPathIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found in %s", name, path)
}

// celineRepository lays a workspace out as the CELINE pipelines repository:
// apps/<app>/governance.yaml.
func celineRepository(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.CopyFS(ws, os.DirFS(testcorpus.Path(t, "reference/celine-pipelines"))); err != nil {
		t.Fatal(err)
	}
	return ws
}

// dbtRepository lays a workspace out as a dbt project's CI job: the base
// branch's artifacts in base/, the pull request's in head/, and a policy
// (the example policy when policy is "").
func dbtRepository(t *testing.T, policy string) string {
	t.Helper()
	ws := t.TempDir()
	addDbt(t, ws, policy)
	return ws
}

func addDbt(t *testing.T, ws, policy string) {
	t.Helper()
	pair := testcorpus.Path(t, "reference/dbt/dbt-bouncer/pair-a2094336-f5b6f07b")
	for _, side := range []string{"base", "head"} {
		if err := os.CopyFS(filepath.Join(ws, side), os.DirFS(filepath.Join(pair, side))); err != nil {
			t.Fatal(err)
		}
	}
	if policy == "" {
		b, err := os.ReadFile(filepath.Join(pair, "example-policy.yml"))
		if err != nil {
			t.Fatal(err)
		}
		policy = string(b)
	}
	if err := os.WriteFile(filepath.Join(ws, "policy.yml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
}

var dbtInputs = map[string]string{
	"paths":         "",
	"policy":        "policy.yml",
	"manifest":      "head/manifest.json",
	"catalog":       "head/catalog.json",
	"base-manifest": "base/manifest.json",
	"base-catalog":  "base/catalog.json",
}

func withInputs(base map[string]string, more ...string) map[string]string {
	m := map[string]string{}
	for k, v := range base {
		m[k] = v
	}
	for i := 0; i+1 < len(more); i += 2 {
		m[more[i]] = more[i+1]
	}
	return m
}

// cliJSON runs the freshly built governanced in dir and decodes its JSON
// report, the reference the action's outputs are held to.
func cliJSON(t *testing.T, dir string, args ...string) map[string]any {
	t.Helper()
	cmd := exec.Command(governanced(t), args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
		t.Fatalf("governanced %q: %v", args, err)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("governanced %q: %v\n%s", args, err, out)
	}
	return v
}

func mustSucceed(t *testing.T, r *actionRun) {
	t.Helper()
	if !r.ok {
		t.Fatalf("the action failed at step %q (exit %d):\n%s", r.failed, r.failedRC, r.log)
	}
}

// TestActionOnCELINERepository: with its default inputs, the action checks
// the real CELINE tree as a repository lays it out, passes (the tree has
// warnings and no errors), reports the counts the CLI reports, annotates
// every finding, writes the SARIF file and skips the policy gate.
func TestActionOnCELINERepository(t *testing.T) {
	ws := celineRepository(t)
	r := runAction(t, shared(t), ws, nil)
	mustSucceed(t, r)

	report := cliJSON(t, ws, "validate", "apps/*", "--format", "json")
	summary := report["summary"].(map[string]any)
	if r.outputs["errors"] != fmt.Sprint(summary["errors"]) || r.outputs["warnings"] != fmt.Sprint(summary["warnings"]) {
		t.Errorf("outputs errors=%q warnings=%q; the CLI counts errors=%v warnings=%v",
			r.outputs["errors"], r.outputs["warnings"], summary["errors"], summary["warnings"])
	}
	if summary["warnings"].(float64) == 0 {
		t.Fatal("the CELINE tree has no warnings: the annotation check below checks nothing")
	}
	if n := strings.Count(r.log, "\n::warning file=apps/"); fmt.Sprint(n) != r.outputs["warnings"] {
		t.Errorf("%d warning annotations, %s warnings", n, r.outputs["warnings"])
	}
	var sarif struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	b, err := os.ReadFile(filepath.Join(ws, r.outputs["sarif"]))
	if err != nil {
		t.Fatalf("output sarif = %q: %v", r.outputs["sarif"], err)
	}
	if err := json.Unmarshal(b, &sarif); err != nil || sarif.Version != "2.1.0" || len(sarif.Runs) != 1 {
		t.Fatalf("%s is not a SARIF 2.1.0 log with one run: %v", r.outputs["sarif"], err)
	}
	if fmt.Sprint(len(sarif.Runs[0].Results)) != r.outputs["warnings"] {
		t.Errorf("SARIF has %d results, the check %s warnings and no errors", len(sarif.Runs[0].Results), r.outputs["warnings"])
	}
	if !strings.Contains(r.summary, "Governance check: pass") {
		t.Errorf("job summary %q does not say the check passed", r.summary)
	}
	if r.outputs["policy_decision"] != "" || !strings.Contains(r.log, "policy is empty: the policy gate is skipped.") {
		t.Errorf("the policy gate ran with no policy (decision %q)", r.outputs["policy_decision"])
	}
}

// TestActionOnDbtRepository: with paths "" the governance check is skipped
// with one line and the policy gate runs on the artifacts. The example policy
// blocks this pair: the job fails by default and passes with fail-on never,
// with the same outputs both times, those the CLI's verdict gives.
func TestActionOnDbtRepository(t *testing.T) {
	ws := dbtRepository(t, "")
	verdict := cliJSON(t, ws, "policy", "check", "--policy", "policy.yml",
		"--manifest", "head/manifest.json", "--catalog", "head/catalog.json",
		"--base-manifest", "base/manifest.json", "--base-catalog", "base/catalog.json", "--format", "json")
	if verdict["policy_decision"] != "block" {
		t.Fatalf("the example policy decides %v on this pair, the test expects block", verdict["policy_decision"])
	}
	for _, c := range []struct {
		failOn string
		ok     bool
	}{{"", false}, {"never", true}} {
		in := withInputs(dbtInputs)
		if c.failOn != "" {
			in["fail-on"] = c.failOn
		}
		r := runAction(t, shared(t), ws, in)
		if r.ok != c.ok || (!r.ok && r.failed != "Apply fail-on") {
			t.Errorf("fail-on %q: ok = %v (failed at %q), want %v\n%s", c.failOn, r.ok, r.failed, c.ok, r.log)
		}
		if n := strings.Count(r.log, "paths is empty: the governance check is skipped.\n"); n != 1 {
			t.Errorf("fail-on %q: the skip is said %d times, want once", c.failOn, n)
		}
		if r.outputs["errors"] != "" || r.outputs["sarif"] != "" {
			t.Errorf("fail-on %q: the skipped check set outputs errors=%q sarif=%q", c.failOn, r.outputs["errors"], r.outputs["sarif"])
		}
		if r.outputs["policy_decision"] != "block" ||
			r.outputs["build_set_size"] != fmt.Sprint(verdict["build_set_size"]) ||
			r.outputs["test_set_size"] != fmt.Sprint(verdict["test_set_size"]) {
			t.Errorf("fail-on %q: outputs %v; the CLI's verdict: decision %v, build set %v, test set %v", c.failOn,
				r.outputs, verdict["policy_decision"], verdict["build_set_size"], verdict["test_set_size"])
		}
		if !strings.Contains(r.summary, "Policy verdict: BLOCK") {
			t.Errorf("fail-on %q: the job summary has no Markdown verdict:\n%s", c.failOn, r.summary)
		}
		for _, f := range []string{"policy-verdict.json", "policy-verdict.md"} {
			if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
				t.Errorf("fail-on %q: %v", c.failOn, err)
			}
		}
	}
}

// TestActionPolicyAllows: a policy with no blocking rule lets the job pass
// with the default inputs, and the decision is allow.
func TestActionPolicyAllows(t *testing.T) {
	ws := dbtRepository(t, `version: 1
rules:
  - id: rebuild-changed
    predicate:
      change: { field: kind, op: in, value: [removed, type_changed, logic_changed] }
    action:
      - type: add-to-build-set
        include: both
`)
	r := runAction(t, shared(t), ws, dbtInputs)
	mustSucceed(t, r)
	if r.outputs["policy_decision"] != "allow" {
		t.Errorf("policy_decision = %q, want allow", r.outputs["policy_decision"])
	}
}

// TestActionFailOn: a tree with an error fails the job unless fail-on is
// never; a clean tree with warnings fails only under fail-on warning or
// strict; the job fails in its last step, after both gates have reported; an
// unknown fail-on is refused at once. Globs in paths reach the CLI as written.
func TestActionFailOn(t *testing.T) {
	broken := celineRepository(t)
	if err := os.MkdirAll(filepath.Join(broken, "apps", "broken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, "apps", "broken", "governance.yaml"), []byte("sources: [1, 2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addDbt(t, broken, "")
	clean := celineRepository(t)
	glob := map[string]string{"paths": "apps/*"}
	brokenAndBlocked := withInputs(dbtInputs, "paths", "apps/*")
	cases := []struct {
		name     string
		ws       string
		with     map[string]string
		ok       bool
		failed   string
		decision string
	}{
		{"an error, by default", broken, glob, false, "Apply fail-on", ""},
		{"an error, fail-on never", broken, withInputs(glob, "fail-on", "never"), true, "", ""},
		{"an error and a block: both gates report", broken, brokenAndBlocked, false, "Apply fail-on", "block"},
		{"an error and a block, fail-on never", broken, withInputs(brokenAndBlocked, "fail-on", "never"), true, "", "block"},
		{"warnings, by default", clean, glob, true, "", ""},
		{"warnings, fail-on warning", clean, withInputs(glob, "fail-on", "warning"), false, "Apply fail-on", ""},
		{"warnings, strict", clean, withInputs(glob, "strict", "true"), false, "Apply fail-on", ""},
		{"warnings, strict, fail-on never", clean, withInputs(glob, "strict", "true", "fail-on", "never"), true, "", ""},
		{"an unknown fail-on", clean, map[string]string{"fail-on": "sometimes"}, false, "Validate governance", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runAction(t, shared(t), c.ws, c.with)
			if r.ok != c.ok || r.failed != c.failed {
				t.Fatalf("ok = %v, failed at %q; want ok = %v, failed at %q\n%s", r.ok, r.failed, c.ok, c.failed, r.log)
			}
			if r.outputs["policy_decision"] != c.decision {
				t.Errorf("policy_decision = %q, want %q", r.outputs["policy_decision"], c.decision)
			}
			if c.ws == broken {
				if r.outputs["errors"] == "0" || r.outputs["errors"] == "" {
					t.Errorf("errors = %q for a tree with an error", r.outputs["errors"])
				}
				if !strings.Contains(r.log, "\n::error file=apps/broken/governance.yaml") {
					t.Errorf("no error annotation on apps/broken/governance.yaml:\n%s", r.log)
				}
			}
		})
	}
}

// TestActionDiffMode: with diff-base naming the base branch checked out
// beside the head, the action diffs the two trees: the Markdown comment in
// the diff-comment file and the job summary, an annotation on the head
// line that lowered the access level, the kinds as an output; the job fails
// on the kinds diff-fail-on names, in its last step, and only then.
func TestActionDiffMode(t *testing.T) {
	ws := celineRepository(t)
	if err := os.CopyFS(filepath.Join(ws, "base"), os.DirFS(testcorpus.Path(t, "reference/celine-pipelines"))); err != nil {
		t.Fatal(err)
	}
	gov := filepath.Join(ws, "apps", "copernicus", "governance.yaml")
	b, err := os.ReadFile(gov)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(b, []byte("\n  access_level: internal\n"), []byte("\n  access_level: open\n"), 1)
	if bytes.Equal(edited, b) {
		t.Fatal("apps/copernicus/governance.yaml states no default access_level: the edit changes nothing")
	}
	if err := os.WriteFile(gov, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	line := 1 + bytes.Count(edited[:bytes.Index(edited, []byte("\n  access_level: open\n"))+1], []byte("\n"))

	cases := []struct {
		name   string
		failOn string
		ok     bool
	}{
		{"reports", "", true},
		{"fails on a risky kind", "risky", false},
		{"passes a kind that did not occur", "dataspace-offered,row-policy-removed", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runAction(t, shared(t), ws, map[string]string{"diff-base": "base", "diff-fail-on": c.failOn})
			if r.ok != c.ok || !c.ok && r.failed != "Apply fail-on" {
				t.Fatalf("ok = %v, failed at %q; want ok = %v (failing in Apply fail-on)\n%s", r.ok, r.failed, c.ok, r.log)
			}
			if r.outputs["diff-kinds"] != "field-changed,access-level-lowered" {
				t.Errorf("diff-kinds = %q", r.outputs["diff-kinds"])
			}
			md, err := os.ReadFile(filepath.Join(ws, r.outputs["diff-comment"]))
			if err != nil {
				t.Fatalf("diff-comment = %q: %v", r.outputs["diff-comment"], err)
			}
			want := "| `access-level-lowered` | 4 datasets of `copernicus`: "
			if !bytes.Contains(md, []byte("### Governance diff")) || !bytes.Contains(md, []byte(want)) ||
				!bytes.Contains(md, []byte(fmt.Sprintf("`apps/copernicus/governance.yaml:%d`", line))) {
				t.Errorf("the comment lacks the lowered access level at apps/copernicus/governance.yaml:%d:\n%s", line, md)
			}
			if !strings.Contains(r.summary, "### Governance diff") {
				t.Errorf("the job summary has no diff:\n%s", r.summary)
			}
			annotation := fmt.Sprintf("\n::warning file=apps/copernicus/governance.yaml,line=%d,title=governanced diff%%3A access-level-lowered::4 datasets of copernicus", line)
			if !strings.Contains(r.log, annotation) {
				t.Errorf("no annotation %q in the log:\n%s", annotation, r.log)
			}
			if !c.ok && !strings.Contains(r.log, "::error::the governance diff holds a kind it fails on") {
				t.Errorf("the failing step does not say why:\n%s", r.log)
			}
		})
	}
	t.Run("skipped without diff-base", func(t *testing.T) {
		r := runAction(t, shared(t), ws, nil)
		mustSucceed(t, r)
		if r.outputs["diff-comment"] != "" || !strings.Contains(r.log, "diff-base is empty: the governance diff is skipped.") {
			t.Errorf("diff-comment = %q; the diff ran without a base", r.outputs["diff-comment"])
		}
	})
	t.Run("an unknown kind is refused", func(t *testing.T) {
		r := runAction(t, shared(t), ws, map[string]string{"diff-base": "base", "diff-fail-on": "dataspace-offerd"})
		if r.ok || r.failed != "Diff governance" || r.failedRC != 2 {
			t.Errorf("ok = %v, failed at %q (exit %d); want Diff governance to refuse it with 2\n%s", r.ok, r.failed, r.failedRC, r.log)
		}
	})
}

// TestActionCachesTheBuild: the first run sets up Go and builds governanced
// from the action's source; a second run with the same source restores the
// binary and does neither.
func TestActionCachesTheBuild(t *testing.T) {
	cache := newActionCache(t)
	ws := dbtRepository(t, "")
	in := withInputs(dbtInputs, "fail-on", "never")
	first := runAction(t, cache, ws, in)
	mustSucceed(t, first)
	second := runAction(t, cache, ws, in)
	mustSucceed(t, second)
	for _, step := range []string{"Set up Go", "Build governanced"} {
		if !slices.Contains(first.ran, step) {
			t.Errorf("the first run did not run %q (ran %q)", step, first.ran)
		}
		if !slices.Contains(second.skipped, step) {
			t.Errorf("the second run did not skip %q (ran %q)", step, second.ran)
		}
	}
	if !strings.Contains(second.log, "::group::Put governanced on PATH\n") || second.outputs["policy_decision"] != "block" {
		t.Errorf("the second run did not use the restored binary:\n%s", second.log)
	}
}

// TestExampleWorkflows holds the example workflows to the action: every
// input they pass is one the action declares, every output they read is one
// it sets, and none installs @latest.
func TestExampleWorkflows(t *testing.T) {
	a := loadAction(t)
	files, err := filepath.Glob("examples/*.yml")
	if err != nil || len(files) < 2 {
		t.Fatalf("examples/*.yml: %d files, %v", len(files), err)
	}
	uploads := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("@latest")) {
			t.Errorf("%s installs @latest", f)
		}
		var wf struct {
			Jobs map[string]struct {
				Steps []struct {
					ID   string            `yaml:"id"`
					Uses string            `yaml:"uses"`
					If   string            `yaml:"if"`
					With map[string]string `yaml:"with"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(b, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		ours := map[string]bool{} // ids of the steps that run the action
		for _, job := range wf.Jobs {
			for _, s := range job.Steps {
				if strings.HasPrefix(s.Uses, "celine-eu/governanced@") {
					ours[s.ID] = true
					for k := range s.With {
						if _, ok := a.Inputs[k]; !ok {
							t.Errorf("%s: passes input %q, which the action does not declare", f, k)
						}
					}
				}
			}
		}
		for _, m := range regexp.MustCompile(`steps\.([\w-]+)\.outputs\.([\w-]+)`).FindAllSubmatch(b, -1) {
			if _, ok := a.Outputs[string(m[2])]; ours[string(m[1])] && !ok {
				t.Errorf("%s: reads output %q, which the action does not set", f, m[2])
			}
		}
		for _, job := range wf.Jobs {
			for _, s := range job.Steps {
				if strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@") {
					uploads++
					if !strings.Contains(s.If, "always()") {
						t.Errorf("%s: upload-sarif does not run when the check fails (if: always())", f)
					}
				}
			}
		}
	}
	if uploads == 0 {
		t.Error("no example workflow uploads the SARIF file")
	}
}
