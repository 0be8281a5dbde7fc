package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// rule wraps a predicate and action into a one-rule policy.
func rule(predicate, action string) string {
	return "version: 1\nrules:\n  - id: r\n    predicate: " + predicate + "\n    action: " + action + "\n"
}

const block = "{ type: block }"

// TestLoadErrors covers the error codes of spec §2.4 beyond the conformance
// cases, one defect per policy.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, policy, code string
	}{
		{"empty file", "", CodePolicyNotMapping},
		{"comments only", "# nothing here\n", CodePolicyNotMapping},
		{"null document", "~\n", CodePolicyNotMapping},
		{"falsy root", "false\n", CodePolicyNotMapping},
		{"list root", "- version: 1\n", CodePolicyNotMapping},
		{"two documents", "version: 1\nrules: []\n---\nversion: 1\n", CodePolicyYAMLInvalid},
		{"duplicate key", "version: 1\nversion: 1\nrules: []\n", CodePolicyYAMLInvalid},
		{"duplicate key in a leaf", rule("{ meta: { key: a, key: b, op: exists } }", block), CodePolicyYAMLInvalid},
		{"version true", "version: true\nrules: []\n", CodeVersionUnsupported},
		{"version v1", "version: v1\nrules: []\n", CodeVersionUnsupported},
		{"version list", "version: [1]\nrules: []\n", CodeVersionUnsupported},
		{"version 2.0", "version: 2.0\nrules: []\n", CodeVersionUnsupported},
		{"version null", "version:\nrules: []\n", CodeVersionUnsupported},
		{"version date", "version: 2024-01-01\nrules: []\n", CodeValueInvalid},
		{"defaults null", "version: 1\ndefaults:\nrules: []\n", CodeValueInvalid},
		{"defaults unknown key", "version: 1\ndefaults: { on_mising_meta: skip }\nrules: []\n", CodeUnknownKey},
		{"on_error bad", "version: 1\ndefaults: { on_error: true }\nrules: []\n", CodeFailSafeInvalid},
		{"rules missing", "version: 1\n", CodeRulesInvalid},
		{"rules null", "version: 1\nrules:\n", CodeRulesInvalid},
		{"rules mapping", "version: 1\nrules: { id: r }\n", CodeRulesInvalid},
		{"rule not mapping", "version: 1\nrules: [ r ]\n", CodeRulesInvalid},
		{"rule unknown key", "version: 1\nrules:\n  - id: r\n    predicate: { change: { field: breaking, op: is_true } }\n    action: { type: block }\n    priority: 1\n", CodeUnknownKey},
		{"id integer", "version: 1\nrules:\n  - id: 42\n    predicate: { change: { field: breaking, op: is_true } }\n    action: { type: block }\n", CodeRuleIDMissing},
		{"id empty", "version: 1\nrules:\n  - id: ''\n    predicate: { change: { field: breaking, op: is_true } }\n    action: { type: block }\n", CodeRuleIDMissing},
		{"description number", "version: 1\nrules:\n  - id: r\n    description: 3\n    predicate: { change: { field: breaking, op: is_true } }\n    action: { type: block }\n", CodeValueInvalid},
		{"scope bad", "version: 1\nrules:\n  - id: r\n    scope: pr\n    predicate: { change: { field: breaking, op: is_true } }\n    action: { type: block }\n", CodeScopeInvalid},
		{"predicate missing", "version: 1\nrules:\n  - id: r\n    action: { type: block }\n", CodePredicateMalformed},
		{"predicate list", rule("[ { change: { field: breaking, op: is_true } } ]", block), CodePredicateMalformed},
		{"predicate empty mapping", rule("{}", block), CodePredicateMalformed},
		{"not with a list", rule("{ not: [ { change: { field: breaking, op: is_true } } ] }", block), CodePredicateMalformed},
		{"any not a list", rule("{ any: { change: { field: breaking, op: is_true } } }", block), CodePredicateMalformed},
		{"leaf body scalar", rule("{ meta: pii }", block), CodePredicateMalformed},
		{"two keys one unknown", rule("{ meta: { key: a, op: exists }, tags: x }", block), CodeUnknownAxis},
		{"reach inside where", rule("{ reach: { kind: model, where: { reach: { kind: model } } } }", block), CodePredicateMalformed},
		{"structural inside where", rule("{ reach: { kind: model, where: { not: { structural: { fact: reaches_anything } } } } }", block), CodePredicateMalformed},
		{"unknown key in leaf", rule("{ meta: { key: a, op: eq, value: 1, default: 2 } }", block), CodeUnknownKey},
		{"unknown key in reach", rule("{ reach: { kind: model, depth: 2 } }", block), CodeUnknownKey},
		{"field missing", rule("{ change: { op: is_true } }", block), CodeUnknownField},
		{"field unknown", rule("{ change: { field: tier, op: is_true } }", block), CodeUnknownField},
		{"op missing", rule("{ meta: { key: a } }", block), CodeUnknownOperator},
		{"op not a string", rule("{ meta: { key: a, op: [eq] } }", block), CodeUnknownOperator},
		{"fact unknown", rule("{ structural: { fact: breaks_prod } }", block), CodeUnknownFact},
		{"fact missing", rule("{ structural: {} }", block), CodeUnknownFact},
		{"reach kind missing", rule("{ reach: { min_count: 1 } }", block), CodeUnknownReachKind},
		{"reach kind unknown", rule("{ reach: { kind: dashboard } }", block), CodeUnknownReachKind},
		{"mechanism scalar", rule("{ reach: { kind: model, mechanism: derived_recompute } }", block), CodeMechanismInvalid},
		{"mechanism empty", rule("{ reach: { kind: model, mechanism: [] } }", block), CodeMechanismInvalid},
		{"min_count bool", rule("{ reach: { kind: model, min_count: yes } }", block), CodeMinCountInvalid},
		{"min_count string", rule("{ reach: { kind: model, min_count: '2' } }", block), CodeMinCountInvalid},
		{"min_count float", rule("{ reach: { kind: model, min_count: 2.0 } }", block), CodeMinCountInvalid},
		{"key missing", rule("{ meta: { op: exists } }", block), CodeMetaKeyInvalid},
		{"key empty segment", rule("{ meta: { key: 'a..b', op: exists } }", block), CodeMetaKeyInvalid},
		{"key leading dot", rule("{ meta: { key: .a, op: exists } }", block), CodeMetaKeyInvalid},
		{"key number", rule("{ meta: { key: 3, op: exists } }", block), CodeMetaKeyInvalid},
		{"presence op with value", rule("{ meta: { key: a, op: exists, value: true } }", block), CodeValueInvalid},
		{"eq without value", rule("{ meta: { key: a, op: eq } }", block), CodeValueInvalid},
		{"gt with string", rule("{ meta: { key: a, op: gt, value: '10' } }", block), CodeValueInvalid},
		{"gt with bool", rule("{ meta: { key: a, op: gt, value: yes } }", block), CodeValueInvalid},
		{"gt with nan", rule("{ meta: { key: a, op: gt, value: .nan } }", block), CodeValueInvalid},
		{"matches with number", rule("{ meta: { key: a, op: matches, value: 3 } }", block), CodeValueInvalid},
		{"subset_of scalar", rule("{ meta: { key: a, op: subset_of, value: A } }", block), CodeValueInvalid},
		{"unquoted date", rule("{ meta: { key: since, op: eq, value: 2024-01-01 } }", block), CodeValueInvalid},
		{"date inside a list", rule("{ meta: { key: since, op: in, value: ['x', 2024-01-01] } }", block), CodeValueInvalid},
		{"semantic unknown", rule("{ change: { field: semantic, op: eq, value: breaking } }", block), CodeValueInvalid},
		{"kind list with unknown", rule("{ change: { field: kind, op: in, value: [added, renamed] } }", block), CodeValueInvalid},
		{"kind eq null", rule("{ change: { field: kind, op: ne, value: null } }", block), CodeValueInvalid},
		{"action missing", "version: 1\nrules:\n  - id: r\n    predicate: { change: { field: breaking, op: is_true } }\n", CodeActionInvalid},
		{"action string", rule("{ change: { field: breaking, op: is_true } }", "block"), CodeActionInvalid},
		{"action empty list", rule("{ change: { field: breaking, op: is_true } }", "[]"), CodeActionInvalid},
		{"action element string", rule("{ change: { field: breaking, op: is_true } }", "[ block ]"), CodeActionInvalid},
		{"action without type", rule("{ change: { field: breaking, op: is_true } }", "{ channel: slack }"), CodeActionInvalid},
		{"action type number", rule("{ change: { field: breaking, op: is_true } }", "{ type: 1 }"), CodeUnknownActionType},
		{"block with a parameter", rule("{ change: { field: breaking, op: is_true } }", "{ type: block, include: subject }"), CodeUnknownKey},
		{"include bad", rule("{ change: { field: breaking, op: is_true } }", "{ type: add-to-build-set, include: all }"), CodeActionParamInvalid},
		{"action mechanism unknown", rule("{ change: { field: breaking, op: is_true } }", "{ type: add-to-test-set, mechanism: [filter] }"), CodeUnknownMechanism},
		{"notify empty channel", rule("{ change: { field: breaking, op: is_true } }", "{ type: notify, channel: '', target: x }"), CodeActionParamInvalid},
		{"notify message list", rule("{ change: { field: breaking, op: is_true } }", "{ type: notify, channel: c, target: t, message: [a] }"), CodeActionParamInvalid},
		{"rule on_missing_meta bad", "version: 1\nrules:\n  - id: r\n    predicate: { change: { field: breaking, op: is_true } }\n    action: { type: block }\n    on_missing_meta: closed\n", CodeFailSafeInvalid},
		{"boolean key", "version: 1\nrules: []\non: true\n", CodeUnknownKey},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load([]byte(tc.policy), "p.yml")
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Load = %v, want an *Error with code %s", err, tc.code)
			}
			if pe.Code != tc.code {
				t.Fatalf("code %s, want %s: %v", pe.Code, tc.code, err)
			}
			if !strings.HasPrefix(err.Error(), "p.yml") {
				t.Errorf("error %q does not start with the file name", err)
			}
		})
	}
}

func TestLoadAccepts(t *testing.T) {
	tests := []struct {
		name, policy, version string
		rules                 int
	}{
		{"empty rules", "version: 1\nrules: []\n", "1", 0},
		{"version float minor", "version: 1.2\nrules: []\n", "1.2", 0},
		{"version 1.0", "version: 1.0\nrules: []\n", "1.0", 0},
		{"version patch string", "version: 1.2.3\nrules: []\n", "1.2.3", 0},
		{"version octal one", "version: 01\nrules: []\n", "1", 0},
		{"json text", `{"version": 1, "rules": [{"id": "r", "predicate": {"meta": {"key": "a", "op": "exists"}}, "action": [{"type": "warn"}]}]}`, "1", 1},
		{"description null", "version: 1\nrules:\n  - id: r\n    description:\n    predicate: { change: { field: breaking, op: is_true } }\n    action: { type: warn }\n", "1", 1},
		{"merge keys", "version: 1\nrules:\n  - &base\n    id: a\n    predicate: { change: { field: breaking, op: is_true } }\n    action: { type: warn }\n  - <<: *base\n    id: b\n    action: { type: block }\n", "1", 2},
		{"anchors and aliases", "version: 1\nrules:\n  - id: a\n    predicate: &p { change: { field: breaking, op: is_true } }\n    action: { type: warn }\n  - id: b\n    predicate: *p\n    action: { type: block }\n", "1", 2},
		{"eq null", rule("{ meta: { key: a, op: eq, value: null } }", block), "1", 1},
		{"eq mapping", rule("{ meta: { key: a, op: eq, value: { x: 1 } } }", block), "1", 1},
		{"gt big int", rule("{ meta: { key: a, op: gt, value: 123456789012345678901234567890 } }", block), "1", 1},
		{"duplicate actions", rule("{ change: { field: breaking, op: is_true } }", "[ { type: warn }, { type: warn } ]"), "1", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Load([]byte(tc.policy), "p.yml")
			if err != nil {
				t.Fatal(err)
			}
			if p.Version != tc.version || len(p.Rules) != tc.rules {
				t.Errorf("version %q with %d rules, want %q with %d", p.Version, len(p.Rules), tc.version, tc.rules)
			}
		})
	}
}

// TestLoadYAML11Typing: a literal in a policy gets the type the same literal
// gets in dbt meta (spec §2.3).
func TestLoadYAML11Typing(t *testing.T) {
	p, err := Load([]byte(rule("{ meta: { key: a, op: in, value: [NO, yes, 017, '017', 1.5, ~] } }", block)), "p.yml")
	if err != nil {
		t.Fatal(err)
	}
	want := []any{false, true, int64(15), "017", 1.5, nil}
	if diff := cmp.Diff(want, p.Rules[0].predicate.list); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
}

func TestLoadDefaultsAndOverrides(t *testing.T) {
	p, err := Load([]byte(`version: 1
defaults: { on_missing_meta: skip, on_error: fail_open }
rules:
  - id: a
    scope: aggregate
    predicate: { change: { field: breaking, op: is_true } }
    action: [ { type: warn }, { type: add-to-build-set, include: both, mechanism: [rowset_filter] } ]
    on_error: fail_closed
`), "p.yml")
	if err != nil {
		t.Fatal(err)
	}
	r := p.Rules[0]
	if p.Defaults.OnMissingMeta != Skip || p.Defaults.OnError != FailOpen {
		t.Errorf("defaults %+v", p.Defaults)
	}
	if r.Scope != ScopeAggregate || r.OnMissingMeta != nil || r.OnError == nil || *r.OnError != FailClosed {
		t.Errorf("rule scope %v, knobs %v %v", r.Scope, r.OnMissingMeta, r.OnError)
	}
	want := []Action{{Type: ActionWarn}, {Type: ActionAddToBuild, Include: IncludeBoth, Mechanisms: []string{MechanismRowsetFilter}}}
	if diff := cmp.Diff(want, r.Actions); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
	if r.Decision() != DecisionWarn || r.Blocking() {
		t.Errorf("decision %s", r.Decision())
	}
}

func TestLoadErrorNamesFileLineAndPath(t *testing.T) {
	_, err := Load([]byte("version: 1\nrules:\n  - id: gate\n    predicate:\n      all:\n        - meta: { key: pii, op: is_true }\n        - meta: { key: tier, op: contains, value: x }\n    action: { type: block }\n"), "policies/gate.yml")
	want := `policies/gate.yml:7:34: rules[0] (gate).predicate.all[1].meta.op: "contains" is not an operator [unknown_operator]`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

func TestLoadWarnsOnUnknownPlaceholders(t *testing.T) {
	p, err := Load([]byte(rule("{ change: { field: breaking, op: is_true } }", `{ type: notify, channel: c, target: t, message: "{rule.id} {change.kind} { spaced } {reach.count}" }`)), "p.yml")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "{change.kind}") {
		t.Errorf("warnings %q, want one naming {change.kind}", p.Warnings)
	}
}

// TestLoadQuoteDates: an unquoted date anywhere in a policy is value_invalid,
// whatever was expected at that place (spec §2.3).
func TestLoadQuoteDates(t *testing.T) {
	for _, doc := range []string{
		"version: 1\nrules:\n  - id: 2024-01-01\n    predicate: { change: { field: breaking, op: is_true } }\n    action: { type: block }\n",
		"version: 1\nrules:\n  - id: r\n    scope: 2024-01-01\n    predicate: { change: { field: breaking, op: is_true } }\n    action: { type: block }\n",
		rule("{ meta: { key: a, op: matches, value: 2024-01-01 } }", block),
		rule("{ 2024-01-01: x }", block),
		rule("{ change: { field: breaking, op: is_true } }", "{ type: notify, channel: c, target: 2024-01-01 }"),
		"version: 1\n2024-01-01: x\nrules: []\n",
	} {
		_, err := Load([]byte(doc), "p.yml")
		var pe *Error
		if !errors.As(err, &pe) || pe.Code != CodeValueInvalid || !strings.Contains(pe.Msg, "quote it") {
			t.Errorf("%q: %v, want value_invalid asking to quote the date", doc, err)
		}
	}
}
