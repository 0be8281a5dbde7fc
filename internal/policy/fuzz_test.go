package policy

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

var knownCodes = map[string]bool{
	CodePolicyNotFound: true, CodePolicyYAMLInvalid: true, CodePolicyNotMapping: true, CodeUnknownKey: true,
	CodeVersionMissing: true, CodeVersionUnsupported: true, CodeRulesInvalid: true, CodeRuleIDMissing: true,
	CodeRuleIDDuplicate: true, CodeScopeInvalid: true, CodePredicateMalformed: true, CodeUnknownAxis: true,
	CodeUnknownOperator: true, CodeUnknownField: true, CodeUnknownFact: true, CodeUnknownReachKind: true,
	CodeUnknownMechanism: true, CodeMechanismInvalid: true, CodeMinCountInvalid: true, CodeMetaKeyInvalid: true,
	CodeValueInvalid: true, CodeActionInvalid: true, CodeUnknownActionType: true, CodeActionParamInvalid: true,
	CodeFailSafeInvalid: true,
}

// caseFiles returns the named file of every conformance case that has one.
func caseFiles(f *testing.F, name string) [][]byte {
	return testcorpus.ReadFiles(f, testcorpus.Glob(f, policyCases.Dir(f), filepath.Join("*", name), 1))
}

// FuzzLoad: whatever the bytes, Load either returns a policy the engine can
// evaluate and render, or an *Error with a spec §2.4 code and a position.
func FuzzLoad(f *testing.F) {
	for _, data := range caseFiles(f, "policy.yml") {
		f.Add(data)
	}
	changesets := caseFiles(f, "changeset.json")
	var samples []*Changeset
	for _, data := range changesets[:3] {
		cs, err := ReadChangeset(data, "changeset.json")
		if err != nil {
			f.Fatal(err)
		}
		samples = append(samples, cs)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Load(data, "fuzz.yml")
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || !knownCodes[pe.Code] {
				t.Fatalf("Load error %v is not an *Error with a known code", err)
			}
			return
		}
		for _, cs := range samples {
			res := mustEvaluate(t, p, cs)
			if _, err := json.Marshal(res.Verdict); err != nil {
				t.Fatalf("verdict does not encode: %v", err)
			}
			_ = res.Markdown()
			if res.Verdict.EvaluatedRules != len(p.Rules) || res.Verdict.FiredRules > len(p.Rules) {
				t.Fatalf("rule counts %d/%d for %d rules", res.Verdict.EvaluatedRules, res.Verdict.FiredRules, len(p.Rules))
			}
		}
	})
}

// FuzzReadChangeset: ReadChangeset accepts or rejects with changeset_invalid;
// an accepted changeset evaluates under every conformance policy and survives
// a JSON round trip.
func FuzzReadChangeset(f *testing.F) {
	for _, data := range caseFiles(f, "changeset.json") {
		f.Add(data)
	}
	var policies []*Policy
	for _, data := range caseFiles(f, "policy.yml") {
		if p, err := Load(data, "policy.yml"); err == nil {
			policies = append(policies, p)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, err := ReadChangeset(data, "fuzz.json")
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Code != CodeChangesetInvalid {
				t.Fatalf("ReadChangeset error %v is not a changeset_invalid *Error", err)
			}
			return
		}
		for _, p := range policies {
			_, _ = Evaluate(t.Context(), p, cs)
		}
		again, err := json.Marshal(cs)
		if err != nil {
			t.Fatalf("an accepted changeset does not encode: %v", err)
		}
		if _, err := ReadChangeset(again, "again.json"); err != nil {
			t.Fatalf("an accepted changeset does not read back: %v\n%s", err, again)
		}
	})
}
