package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

// policyCases are the conformance cases of spec §9, one directory each.
var policyCases = testcorpus.Corpus{Env: "GOVERNANCE_POLICY_CASES_DIR", Rel: "policy-cases", Count: 68}

type caseExpectation struct {
	PolicyVerdict json.RawMessage `json:"policy_verdict"`
	Error         *struct {
		Code string `json:"code"`
	} `json:"error"`
	Warning  string `json:"warning"`
	ExitCode int    `json:"exit_code"`
}

type policyCase struct {
	name      string
	dir       string
	policy    []byte // nil when the case has no policy.yml
	changeset []byte
	expected  caseExpectation
}

func loadCases(t testing.TB) []policyCase {
	t.Helper()
	cases := loadCasesIn(t, policyCases.Dir(t))
	policyCases.Check(t, len(cases))
	return cases
}

// projectCases are the project's own cases, in the conformance cases'
// format: behaviour the specification's cases do not cover.
const projectCases = "testdata/policy-cases"

// loadCasesIn reads every case directory under casesDir.
func loadCasesIn(t testing.TB, casesDir string) []policyCase {
	t.Helper()
	entries, err := os.ReadDir(casesDir)
	if err != nil {
		t.Fatalf("reading the conformance cases: %v", err)
	}
	var cases []policyCase
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(casesDir, e.Name())
		c := policyCase{name: e.Name(), dir: dir}
		if c.policy, err = os.ReadFile(filepath.Join(dir, "policy.yml")); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if c.changeset, err = os.ReadFile(filepath.Join(dir, "changeset.json")); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(dir, "expected.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &c.expected); err != nil {
			t.Fatalf("%s: expected.json: %v", e.Name(), err)
		}
		cases = append(cases, c)
	}
	return cases
}

func jsonValue(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestConformanceCases runs every case through Load and Evaluate and compares
// the verdict by JSON equality (cases README, harness contract).
func TestConformanceCases(t *testing.T) { runCases(t, loadCases(t)) }

// TestProjectCases runs the project's own cases the same way.
func TestProjectCases(t *testing.T) {
	cases := loadCasesIn(t, projectCases)
	if len(cases) == 0 {
		t.Fatalf("no cases under %s", projectCases)
	}
	runCases(t, cases)
}

func runCases(t *testing.T, cases []policyCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.policy == nil {
				if c.expected.Warning != "no_policy_resolved" || string(c.expected.PolicyVerdict) != "null" {
					t.Fatalf("a case without policy.yml must expect no_policy_resolved and no verdict")
				}
				return // resolution is the CLI's job: cmd/governanced covers it
			}
			p, err := Load(c.policy, "policy.yml")
			if c.expected.Error != nil {
				var pe *Error
				if !errors.As(err, &pe) {
					t.Fatalf("Load error = %v, want code %s", err, c.expected.Error.Code)
				}
				if pe.Code != c.expected.Error.Code {
					t.Fatalf("Load error code = %s, want %s (%v)", pe.Code, c.expected.Error.Code, err)
				}
				if pe.Line == 0 || pe.File != "policy.yml" {
					t.Errorf("error %q does not name file and line", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			cs, err := ReadChangeset(c.changeset, "changeset.json")
			if err != nil {
				t.Fatalf("ReadChangeset: %v", err)
			}
			res := mustEvaluate(t, p, cs)
			got, err := json.Marshal(res.Verdict)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(jsonValue(t, c.expected.PolicyVerdict), jsonValue(t, got)); diff != "" {
				t.Errorf("policy_verdict mismatch (-want +got):\n%s", diff)
			}
			exit := 0
			if res.Verdict.Decision == DecisionBlock {
				exit = 1
			}
			if exit != c.expected.ExitCode {
				t.Errorf("exit code under --fail-on policy = %d, want %d", exit, c.expected.ExitCode)
			}
		})
	}
}

// TestDocumentedPolicyIsACase: the policy docs/ci.md shows for
// governance.inferred is the one the project's cases p01–p04 run.
func TestDocumentedPolicyIsACase(t *testing.T) {
	doc, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	const start = "```yaml\nversion: 1\nrules:\n  - id: pii-into-exposed-dataset\n"
	i := bytes.Index(doc, []byte(start))
	if i < 0 {
		t.Fatal("docs/ci.md shows no pii-into-exposed-dataset policy")
	}
	body := doc[i+len("```yaml\n"):]
	body = body[:bytes.Index(body, []byte("```"))]
	for _, c := range loadCasesIn(t, projectCases) {
		if !strings.HasPrefix(c.name, "p0") {
			continue
		}
		if diff := cmp.Diff(string(body), string(c.policy)); diff != "" {
			t.Errorf("%s: policy.yml differs from docs/ci.md (-docs +case):\n%s", c.name, diff)
		}
	}
}
