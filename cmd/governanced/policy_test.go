package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/cli"
	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/policy"
	"github.com/celine-eu/governanced/internal/testcorpus"
)

// policyCases are the conformance cases of spec §9, one directory each.
var policyCases = testcorpus.Corpus{Env: "GOVERNANCE_POLICY_CASES_DIR", Rel: "policy-cases", Count: 68}

// bouncerPair is the real dbt base/head pair with its example policy.
const bouncerPair = "reference/dbt/dbt-bouncer/pair-a2094336-f5b6f07b"

type policyRun struct {
	code           int
	stdout, stderr string
	err            error
}

func runPolicyCheckT(t *testing.T, workDir string, args ...string) policyRun {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := cli.Run(context.Background(), newRootCmd(&cli.Env{Dir: workDir, Getenv: func(string) string { return "" }}), append([]string{"policy", "check"}, args...), &stdout, &stderr)
	return policyRun{code: exitCode(err, &stderr), stdout: stdout.String(), stderr: stderr.String(), err: err}
}

func (r policyRun) report(t *testing.T) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout is not a JSON report: %v\n%s\nstderr: %s", err, r.stdout, r.stderr)
	}
	return out
}

// TestPolicyCheckConformanceCases runs every case of spec §9 through the
// command line: policy file bytes, --changeset, --fail-on policy, JSON report.
func TestPolicyCheckConformanceCases(t *testing.T) {
	policyCasesDir := policyCases.Dir(t)
	entries, err := os.ReadDir(policyCasesDir)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		ran++
		dir, _ := filepath.Abs(filepath.Join(policyCasesDir, e.Name()))
		t.Run(e.Name(), func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, "expected.json"))
			if err != nil {
				t.Fatal(err)
			}
			var want struct {
				PolicyVerdict json.RawMessage `json:"policy_verdict"`
				Error         *struct {
					Code string `json:"code"`
				} `json:"error"`
				Warning  string `json:"warning"`
				ExitCode int    `json:"exit_code"`
			}
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			args := []string{"--changeset", filepath.Join(dir, "changeset.json"), "--fail-on", "policy", "--format", "json"}
			policyFile := filepath.Join(dir, "policy.yml")
			if _, err := os.Stat(policyFile); err == nil {
				args = append(args, "--policy", policyFile)
			}
			// An empty working directory, so no default policy file resolves.
			r := runPolicyCheckT(t, t.TempDir(), args...)
			if r.code != want.ExitCode {
				t.Fatalf("exit code %d, want %d (err %v)\nstderr: %s", r.code, want.ExitCode, r.err, r.stderr)
			}
			if want.Error != nil {
				var pe *policy.Error
				if !errors.As(r.err, &pe) || pe.Code != want.Error.Code {
					t.Fatalf("error %v, want code %s", r.err, want.Error.Code)
				}
				if !strings.Contains(r.stderr, "policy.yml:") {
					t.Errorf("stderr does not name the policy file: %q", r.stderr)
				}
				if r.stdout != "" {
					t.Errorf("an invalid policy must not print a report, got %s", r.stdout)
				}
				return
			}
			report := r.report(t)
			if want.Warning == "no_policy_resolved" {
				if _, ok := report["policy_verdict"]; ok {
					t.Errorf("no policy resolved, yet the report has a policy_verdict key")
				}
				if !strings.Contains(r.stderr, noPolicyGateWarning) {
					t.Errorf("stderr %q lacks the no-policy warning", r.stderr)
				}
				return
			}
			var wantVerdict any
			if err := json.Unmarshal(want.PolicyVerdict, &wantVerdict); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantVerdict, report["policy_verdict"]); diff != "" {
				t.Errorf("policy_verdict mismatch (-want +got):\n%s", diff)
			}
		})
	}
	policyCases.Check(t, ran)
}

func writePolicyFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	policyBlockAll  = "version: 1\nrules:\n  - id: everything\n    predicate: { change: { field: breaking, op: is_true } }\n    action: { type: block }\n"
	policyWarnAll   = "version: 1\nrules:\n  - id: heads-up\n    predicate: { change: { field: breaking, op: is_true } }\n    action: { type: warn }\n"
	policyOneChange = `{"changeset_version": 1, "models": {"m": {"meta": {}, "columns": {}}}, "exposures": {},
  "changes": [{"model": "m", "column": "c", "kind": "logic_changed", "reach": {"resolved": true, "models": [], "columns": null, "exposures": [{"name": "dash"}]}}]}`
)

func TestPolicyCheckResolutionAndExitCodes(t *testing.T) {
	shared := t.TempDir()
	changeset := writePolicyFile(t, shared, "changeset.json", policyOneChange)
	tests := []struct {
		name       string
		files      map[string]string // default policy files in the working directory
		args       []string
		wantCode   int
		wantStderr string
		wantRule   string // rule id of the first hit; "" for no policy_verdict
	}{
		{name: "default file", files: map[string]string{"governanced.policy.yml": policyBlockAll}, args: []string{"--fail-on", "policy"}, wantCode: 1, wantRule: "everything"},
		{name: "legacy default file", files: map[string]string{"dbt-col-lineage.policy.yml": policyWarnAll}, args: []string{"--fail-on", "policy"}, wantCode: 0, wantRule: "heads-up"},
		{name: "both defaults: the first wins, with a note", files: map[string]string{"governanced.policy.yml": policyWarnAll, "dbt-col-lineage.policy.yml": policyBlockAll}, args: []string{"--fail-on", "policy"}, wantCode: 0, wantStderr: "dbt-col-lineage.policy.yml is ignored", wantRule: "heads-up"},
		{name: "explicit path beats defaults", files: map[string]string{"governanced.policy.yml": policyWarnAll, "mine.yml": policyBlockAll}, args: []string{"--policy", "WORKDIR/mine.yml", "--fail-on", "policy"}, wantCode: 1, wantRule: "everything"},
		{name: "explicit path missing", args: []string{"--policy", "WORKDIR/nope.yml"}, wantCode: 2, wantStderr: "policy_not_found"},
		{name: "explicit path is a directory", args: []string{"--policy", "WORKDIR"}, wantCode: 2, wantStderr: "policy_not_found"},
		{name: "block without --fail-on policy does not gate", files: map[string]string{"governanced.policy.yml": policyBlockAll}, wantCode: 0, wantRule: "everything"},
		{name: "invalid policy fails whatever --fail-on says", files: map[string]string{"governanced.policy.yml": "version: 3\nrules: []\n"}, args: []string{"--fail-on", "none"}, wantCode: 2, wantStderr: "version_unsupported"},
		{name: "empty policy file is an error", files: map[string]string{"governanced.policy.yml": "# nothing\n"}, wantCode: 2, wantStderr: "policy_not_mapping"},
		{name: "no policy, legacy gate trips", args: []string{"--fail-on", "exposures"}, wantCode: 1},
		{name: "no policy, --fail-on policy warns", args: []string{"--fail-on", "policy"}, wantCode: 0, wantStderr: noPolicyGateWarning},
		{name: "policy runs but a legacy gate decides", files: map[string]string{"governanced.policy.yml": policyBlockAll}, args: []string{"--fail-on", "tests"}, wantCode: 0, wantRule: "everything"},
		{name: "unknown gate", args: []string{"--fail-on", "sometimes"}, wantCode: 2, wantStderr: "--fail-on"},
		{name: "a governance tree that fails its check is refused", args: []string{"--governance", "WORKDIR"}, wantCode: 2, wantStderr: "--governance"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				writePolicyFile(t, dir, name, content)
			}
			args := []string{"--changeset", changeset}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "WORKDIR", dir))
			}
			r := runPolicyCheckT(t, dir, args...)
			if r.code != tc.wantCode {
				t.Fatalf("exit code %d, want %d (err %v)\nstderr: %s", r.code, tc.wantCode, r.err, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.wantStderr) {
				t.Errorf("stderr %q lacks %q", r.stderr, tc.wantStderr)
			}
			if tc.wantCode == 2 {
				return
			}
			report := r.report(t)
			verdict, ok := report["policy_verdict"].(map[string]any)
			if tc.wantRule == "" {
				if ok {
					t.Errorf("unexpected policy_verdict %v", verdict)
				}
				if report["policy_decision"] != "" {
					t.Errorf("policy_decision = %v, want empty without a policy", report["policy_decision"])
				}
				return
			}
			if !ok {
				t.Fatalf("report lacks policy_verdict: %s", r.stdout)
			}
			hit := verdict["hits"].([]any)[0].(map[string]any)
			if hit["rule_id"] != tc.wantRule {
				t.Errorf("first hit rule %v, want %s", hit["rule_id"], tc.wantRule)
			}
		})
	}
}

// TestPolicyCheckFromDbtArtifacts drives the real dbt-bouncer pair through the
// command line: artifacts → level-1 changeset (--precision model) → the
// verdict its folder states.
func TestPolicyCheckFromDbtArtifacts(t *testing.T) {
	pair := testcorpus.Path(t, bouncerPair)
	r := runPolicyCheckT(t, t.TempDir(), "--precision", "model",
		"--policy", filepath.Join(pair, "example-policy.yml"),
		"--manifest", filepath.Join(pair, "head/manifest.json"), "--catalog", filepath.Join(pair, "head/catalog.json"),
		"--base-manifest", filepath.Join(pair, "base/manifest.json"), "--base-catalog", filepath.Join(pair, "base/catalog.json"),
		"--fail-on", "policy")
	raw, err := os.ReadFile(filepath.Join(pair, "expected-verdict.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		PolicyVerdict any `json:"policy_verdict"`
		ExitCode      int `json:"exit_code"`
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if r.code != want.ExitCode {
		t.Fatalf("exit code %d, want %d\nstderr: %s", r.code, want.ExitCode, r.stderr)
	}
	report := r.report(t)
	if diff := cmp.Diff(want.PolicyVerdict, report["policy_verdict"]); diff != "" {
		t.Errorf("policy_verdict mismatch (-want +got):\n%s", diff)
	}
	if report["policy_decision"] != "block" || report["build_set_size"] != 1.0 {
		t.Errorf("CI outputs: policy_decision %v, build_set_size %v", report["policy_decision"], report["build_set_size"])
	}
}

func TestPolicyCheckMarkdown(t *testing.T) {
	dir := t.TempDir()
	writePolicyFile(t, dir, "governanced.policy.yml", policyBlockAll)
	changeset := writePolicyFile(t, dir, "changeset.json", policyOneChange)
	r := runPolicyCheckT(t, dir, "--changeset", changeset, "--format", "markdown", "--fail-on", "policy")
	if r.code != 1 {
		t.Fatalf("exit code %d, want 1; stderr %s", r.code, r.stderr)
	}
	lines := strings.Split(r.stdout, "\n")
	at := -1
	for i, l := range lines {
		if l == "### Policy verdict: BLOCK" {
			at = i
		}
	}
	if at < 0 || at+1 >= len(lines) || !strings.HasPrefix(lines[at+1], "⛔ **Blocked until** the change is no longer breaking (`everything`)") {
		t.Errorf("the block section must lead with the release path:\n%s", r.stdout)
	}
}

type fakePolicyTrees map[string]map[string]any

func (f fakePolicyTrees) Governance(relation string) (map[string]any, bool) {
	rule, ok := f[relation]
	return rule, ok
}

func (f fakePolicyTrees) Rule(string) (*governance.Rule, bool) { return nil, false }

func TestPolicyCheckGovernanceTrees(t *testing.T) {
	saved := governanceFromTrees
	t.Cleanup(func() { governanceFromTrees = saved })
	governanceFromTrees = func(ctx context.Context, trees []string) (treeGovernance, error) {
		if len(trees) != 2 {
			t.Errorf("trees = %q, want both --governance values", trees)
		}
		return fakePolicyTrees{"wh.marts.m": {"classification": "pii"}}, nil
	}
	dir := t.TempDir()
	writePolicyFile(t, dir, "governanced.policy.yml", "version: 1\nrules:\n  - id: pii\n    predicate: { meta: { key: governance.classification, op: eq, value: pii } }\n    action: { type: block }\n")
	changeset := writePolicyFile(t, dir, "changeset.json", strings.Replace(policyOneChange, `"m": {"meta": {}`, `"m": {"relation": "wh.marts.m", "meta": {}`, 1))
	r := runPolicyCheckT(t, dir, "--changeset", changeset, "--governance", "a", "--governance", "b", "--fail-on", "policy")
	if r.code != 1 {
		t.Fatalf("exit code %d, want 1 (governance.classification from the tree); stderr %s", r.code, r.stderr)
	}
}

// TestPolicyCheckRealGovernanceTree goes through the real loader: the tree is
// checked and served by the snapshot, and the relation the model writes
// resolves globally (a glob here) to the rule the policy reads.
func TestPolicyCheckRealGovernanceTree(t *testing.T) {
	dir := t.TempDir()
	writePolicyFile(t, dir, "tree/apps/warehouse/governance.yaml", `defaults:
  access_level: internal
sources:
  wh.marts.*:
    classification: pii
    row_filters: []
  wh.staging.m:
    classification: green
    row_filters: []
`)
	writePolicyFile(t, dir, "governanced.policy.yml", "version: 1\nrules:\n  - id: pii\n    predicate: { meta: { key: governance.classification, op: eq, value: pii } }\n    action: { type: block }\n")
	for _, tc := range []struct {
		relation string
		wantCode int
	}{
		{"wh.marts.m", 1},   // the glob says pii: block
		{"wh.staging.m", 0}, // the literal key says green
	} {
		changeset := writePolicyFile(t, dir, "changeset.json", strings.Replace(policyOneChange, `"m": {"meta": {}`, `"m": {"relation": "`+tc.relation+`", "meta": {}`, 1))
		r := runPolicyCheckT(t, dir, "--changeset", changeset, "--governance", filepath.Join(dir, "tree"), "--fail-on", "policy")
		if r.code != tc.wantCode {
			t.Errorf("%s: exit code %d, want %d; stderr %s", tc.relation, r.code, tc.wantCode, r.stderr)
		}
	}
}

func TestPolicyCheckUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--changeset", "x.json", "--manifest", "m.json"},
		{"--manifest", "m.json"},
		{"--changeset", "x.json", "--format", "yaml"},
		{"--changeset", "x.json", "stray"},
		{"--no-such-flag"},
	} {
		r := runPolicyCheckT(t, t.TempDir(), args...)
		var ue *cli.UsageError
		if r.code != 2 || !errors.As(r.err, &ue) {
			t.Errorf("%q: code %d err %v, want a usage error", args, r.code, r.err)
		}
	}
	var stdout, stderr bytes.Buffer
	if err := runE(context.Background(), []string{"policy", "evaluate"}, func(string) string { return "" }, &stdout, &stderr); exitCode(err, &stderr) != 2 {
		t.Errorf("policy without check: %v", err)
	}
	if r := runPolicyCheckT(t, t.TempDir(), "--help"); r.code != 0 || !strings.Contains(r.stdout, "governanced policy check [flags]") {
		t.Errorf("--help: code %d, stdout %q", r.code, r.stdout)
	}
}
