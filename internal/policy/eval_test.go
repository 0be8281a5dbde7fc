package policy

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/testctx"
)

var truthNames = map[truth]string{tFalse: "F", tTrue: "T", tMissing: "U(m)", tError: "U(e)"}

// TestKleeneTables checks all/any/not against the tables of spec §5.3.
func TestKleeneTables(t *testing.T) {
	order := []truth{tTrue, tFalse, tMissing, tError}
	wantAnd := [][]truth{
		{tTrue, tFalse, tMissing, tError},
		{tFalse, tFalse, tFalse, tFalse},
		{tMissing, tFalse, tMissing, tError},
		{tError, tFalse, tError, tError},
	}
	wantOr := [][]truth{
		{tTrue, tTrue, tTrue, tTrue},
		{tTrue, tFalse, tMissing, tError},
		{tTrue, tMissing, tMissing, tError},
		{tTrue, tError, tError, tError},
	}
	for i, a := range order {
		for j, b := range order {
			if got := and(a, b); got != wantAnd[i][j] {
				t.Errorf("%s ∧ %s = %s, want %s", truthNames[a], truthNames[b], truthNames[got], truthNames[wantAnd[i][j]])
			}
			if got := or(a, b); got != wantOr[i][j] {
				t.Errorf("%s ∨ %s = %s, want %s", truthNames[a], truthNames[b], truthNames[got], truthNames[wantOr[i][j]])
			}
		}
	}
	for a, want := range map[truth]truth{tTrue: tFalse, tFalse: tTrue, tMissing: tMissing, tError: tError} {
		if got := not(a); got != want {
			t.Errorf("not %s = %s, want %s", truthNames[a], truthNames[got], truthNames[want])
		}
	}
}

// TestOperators is the run-time operator table of spec §5.2, on a meta value
// read from a changeset (JSON) against a value written in a policy (YAML).
func TestOperators(t *testing.T) {
	tests := []struct {
		leaf string // meta leaf body without the key
		meta string // JSON value of key "v"; "" = missing
		want truth
	}{
		{"op: exists", "", tFalse},
		{"op: exists", "null", tTrue},
		{"op: absent", "", tTrue},
		{"op: is_true", "", tFalse},
		{"op: is_true", `"false"`, tTrue},
		{"op: is_true", "0.0", tFalse},
		{"op: is_true", "{}", tFalse},
		{"op: is_false", "", tFalse},
		{"op: is_false", "[]", tTrue},
		{"op: eq, value: 1", "1.0", tTrue},
		{"op: eq, value: 1", "true", tFalse},
		{"op: eq, value: true", "1", tFalse},
		{"op: eq, value: null", "null", tTrue},
		{"op: eq, value: Gold", `"gold"`, tFalse},
		{"op: eq, value: [a, b]", `["a","b"]`, tTrue},
		{"op: eq, value: [a, b]", `["b","a"]`, tFalse},
		{"op: eq, value: {x: 1}", `{"x": 1.0}`, tTrue},
		{"op: eq, value: x", "", tMissing},
		{"op: ne, value: x", `"y"`, tTrue},
		{"op: ne, value: x", "", tMissing},
		{"op: in, value: [a, 2]", "2", tTrue},
		{"op: in, value: [a, 2]", `"b"`, tFalse},
		{"op: in, value: [a]", `["a"]`, tError},
		{"op: not_in, value: [a]", `{"a": 1}`, tError},
		{"op: not_in, value: [a]", `"b"`, tTrue},
		{"op: matches, value: 'dim_.*'", `"dim_x"`, tTrue},
		{"op: matches, value: 'dim'", `"dim_x"`, tFalse},
		{"op: matches, value: 'a|b'", `"ab"`, tFalse},
		{"op: matches, value: '.*'", "3", tError},
		{"op: intersects, value: [a, b]", `["c","b"]`, tTrue},
		{"op: intersects, value: [a]", `[]`, tFalse},
		{"op: intersects, value: [a]", `"a"`, tError},
		{"op: subset_of, value: [a, b]", `["a","a"]`, tTrue},
		{"op: subset_of, value: [a]", `[]`, tTrue},
		{"op: not_subset_of, value: [a]", `[]`, tFalse},
		{"op: not_subset_of, value: [a]", `["a","z"]`, tTrue},
		{"op: not_subset_of, value: [a]", `"a"`, tError},
		{"op: superset_of, value: []", `[]`, tTrue},
		{"op: superset_of, value: [a, b]", `["b","c","a"]`, tTrue},
		{"op: superset_of, value: [a, b]", `["a"]`, tFalse},
		{"op: gt, value: 10", "10.5", tTrue},
		{"op: ge, value: 10.0", "10", tTrue},
		{"op: lt, value: 10", `"9"`, tError},
		{"op: le, value: 1", "true", tError},
		{"op: gt, value: 9007199254740992", "9007199254740993", tTrue},
		{"op: gt, value: 1", "", tMissing},
	}
	for _, tc := range tests {
		name := tc.leaf + " on " + tc.meta
		t.Run(name, func(t *testing.T) {
			p, err := Load([]byte(rule("{ meta: { key: v, "+tc.leaf+" } }", block)), "p.yml")
			if err != nil {
				t.Fatal(err)
			}
			columnMeta := "{}"
			if tc.meta != "" {
				columnMeta = `{"v": ` + tc.meta + `}`
			}
			cs := mustChangeset(t, `{"changeset_version": 1, "models": {"m": {"meta": {}, "columns": {"c": {"meta": `+columnMeta+`}}}},
				"changes": [{"model": "m", "column": "c", "kind": "added", "reach": {"resolved": true, "models": [], "columns": [], "exposures": []}}]}`)
			got := p.Rules[0].predicate.eval(&subject{cs: cs, change: cs.Changes[0]})
			if got != tc.want {
				t.Errorf("got %s, want %s", truthNames[got], truthNames[tc.want])
			}
		})
	}
}

func mustEvaluate(t testing.TB, p *Policy, cs *Changeset) *Result {
	t.Helper()
	res, err := Evaluate(t.Context(), p, cs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func mustChangeset(t testing.TB, doc string) *Changeset {
	t.Helper()
	cs, err := ReadChangeset([]byte(doc), "cs.json")
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestInterpolate(t *testing.T) {
	tests := []struct{ msg, want string }{
		{"plain", "plain"},
		{"{rule.id}: {change.model}.{change.column} x{reach.count}", "r: m.c x3"},
		{"{change.kind} {unknown} { rule.id } {rule.id", "{change.kind} {unknown} { rule.id } {rule.id"},
		{"{{rule.id}}", "{r}"},
		{"{rule.ID} {rule..id} {a.b.c}", "{rule.ID} {rule..id} {a.b.c}"},
		{"}{change.model}{", "}m{"},
		{"{change.model}", "m"},
	}
	for _, tc := range tests {
		if got := interpolate(tc.msg, "r", "m", "c", 3); got != tc.want {
			t.Errorf("interpolate(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
	// Replaced text is never rescanned.
	if got := interpolate("{change.model}", "r", "{rule.id}", "", 0); got != "{rule.id}" {
		t.Errorf("rescanned substituted text: %q", got)
	}
}

type fakeGovernance map[string]map[string]any

func (f fakeGovernance) Governance(relation string) (map[string]any, bool) {
	r, ok := f[relation]
	return r, ok
}

// TestGovernanceAwareMeta: with a lookup, a model's meta carries its resolved
// governance rule under governance.*, merged over what dbt meta said there.
func TestGovernanceAwareMeta(t *testing.T) {
	cs := mustChangeset(t, `{"changeset_version": 1,
		"models": {
			"a": {"relation": "wh.gold.a", "meta": {"governance": {"tier": "gold", "classification": "green"}}, "columns": {"c": {"meta": {}}}},
			"b": {"relation": "wh.gold.b", "meta": {}, "columns": {}},
			"x": {"meta": {"governance": "not a map"}, "columns": {}}
		},
		"changes": [
			{"model": "a", "column": "c", "kind": "logic_changed", "reach": {"resolved": true, "models": [{"name": "b", "mechanisms": null}], "columns": null, "exposures": []}}
		]}`)
	cs.AttachGovernance(fakeGovernance{
		"wh.gold.a": {"classification": "pii", "dataspace": map[string]any{"expose": true}},
		"wh.gold.b": {"classification": "red", "tags": []string{"gold", "finance"}, "retention_days": 30},
	})
	cs.AttachGovernance(nil)
	wantA := map[string]any{"governance": map[string]any{"tier": "gold", "classification": "pii", "dataspace": map[string]any{"expose": true}}}
	if diff := cmp.Diff(wantA, cs.Models["a"].Meta); diff != "" {
		t.Errorf("model a meta (-want +got):\n%s", diff)
	}
	wantB := map[string]any{"governance": map[string]any{"classification": "red", "tags": []any{"gold", "finance"}, "retention_days": int64(30)}}
	if diff := cmp.Diff(wantB, cs.Models["b"].Meta); diff != "" {
		t.Errorf("model b meta (-want +got):\n%s", diff)
	}
	p, err := Load([]byte(`version: 1
rules:
  - id: pii-exposed
    predicate:
      all:
        - meta: { key: governance.classification, op: eq, value: pii }
        - meta: { key: governance.dataspace.expose, op: is_true }
    action: { type: block }
  - id: reaches-finance
    predicate: { reach: { kind: model, where: { meta: { key: governance.tags, op: intersects, value: [finance] } } } }
    action: { type: warn }
`), "p.yml")
	if err != nil {
		t.Fatal(err)
	}
	v := mustEvaluate(t, p, cs).Verdict
	if v.Decision != DecisionBlock || v.FiredRules != 2 || !cmp.Equal(v.Hits[1].MatchedReach, []string{"b"}) {
		t.Errorf("verdict %+v", v)
	}
}

func TestReadChangesetErrors(t *testing.T) {
	ok := `{"model": "m", "column": "c", "kind": "added", "reach": {"resolved": true, "models": [], "columns": null, "exposures": []}}`
	tests := []struct{ name, doc, want string }{
		{"not JSON", `{"changeset_version": 1,`, "cs.json:"},
		{"syntax error position", "{\n  \"changeset_version\": 1,\n  oops\n}", "cs.json:3:3"},
		{"empty", ``, "empty"},
		{"version missing", `{"changes": []}`, "changeset_version"},
		{"version 2", `{"changeset_version": 2, "changes": []}`, "changeset_version"},
		{"version string", `{"changeset_version": "1", "changes": []}`, "changeset_version"},
		{"kind unknown", `{"changeset_version": 1, "changes": [{"model": "m", "column": "c", "kind": "renamed", "reach": {"resolved": true}}]}`, "changes[0].kind"},
		{"semantic unknown", `{"changeset_version": 1, "changes": [{"model": "m", "column": "c", "kind": "added", "semantic": "same", "reach": {"resolved": true}}]}`, "changes[0].semantic"},
		{"duplicate subject", `{"changeset_version": 1, "changes": [` + ok + `,` + ok + `]}`, "changes[1]"},
		{"resolved missing", `{"changeset_version": 1, "changes": [{"model": "m", "column": "c", "kind": "added", "reach": {}}]}`, "changes[0].reach.resolved"},
		{"reach missing", `{"changeset_version": 1, "changes": [{"model": "m", "column": "c", "kind": "added"}]}`, "changes[0].reach.resolved"},
		{"wrong type", `{"changeset_version": 1, "changes": [{"model": 3}]}`, "cs.json:1:"},
		{"model missing", `{"changeset_version": 1, "changes": [{"column": "c", "kind": "added", "reach": {"resolved": true}}]}`, "changes[0]"},
		{"trailing data", `{"changeset_version": 1} {}`, "after the changeset"},
		{"precision bad", `{"changeset_version": 1, "precision": "row"}`, "precision"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadChangeset([]byte(tc.doc), "cs.json")
			var pe *Error
			if !errors.As(err, &pe) || pe.Code != CodeChangesetInvalid {
				t.Fatalf("err = %v, want a changeset_invalid *Error", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestReadChangesetDefaults(t *testing.T) {
	cs := mustChangeset(t, `{"changeset_version": 1, "future_key": {"x": 1}, "models": {"m": null},
		"changes": [{"model": "m", "column": "c", "kind": "logic_changed", "semantic": null, "reach": {"resolved": true, "models": [], "columns": [], "columns_complete": false, "exposures": []}}]}`)
	c := cs.Changes[0]
	if c.SemanticOrIndeterminate() != SemanticIndeterminate || !c.Breaking() {
		t.Errorf("absent semantic must read as indeterminate and breaking")
	}
	if c.Reach.ColumnsKnownComplete() {
		t.Errorf("columns_complete false must make the column list a lower bound")
	}
	if cs.Models["m"] == nil || cs.Models["m"].Meta == nil {
		t.Errorf("a null model entry must read as empty meta")
	}
}

// TestAggregateAndDiagnostics: an aggregate rule over changes of which one is
// unknown and a skipped subject both show up in diagnostics, not in the verdict.
func TestAggregateAndDiagnostics(t *testing.T) {
	p, err := Load([]byte(`version: 1
rules:
  - id: tier-check
    predicate: { meta: { key: tier, op: eq, value: gold } }
    action: { type: block }
    on_missing_meta: skip
  - id: pr-wide
    scope: aggregate
    predicate: { meta: { key: readers, op: subset_of, value: [a] } }
    action: { type: block }
`), "p.yml")
	if err != nil {
		t.Fatal(err)
	}
	cs := mustChangeset(t, `{"changeset_version": 1, "models": {"m": {"meta": {"readers": "a"}, "columns": {}}},
		"changes": [{"model": "m", "column": "c", "kind": "added", "reach": {"resolved": true, "models": [], "columns": null, "exposures": []}}]}`)
	res := mustEvaluate(t, p, cs)
	model, column := "m", "c"
	want := []Undecided{
		{RuleID: "tier-check", ChangeModel: &model, ChangeColumn: &column, Cause: "missing", Resolution: "skip"},
		{RuleID: "pr-wide", Cause: "error", Resolution: "fail_closed", Fired: true},
	}
	if diff := cmp.Diff(want, res.Diagnostics.Undecided); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if len(res.Verdict.Hits) != 1 || res.Verdict.Hits[0].ChangeModel != nil {
		t.Errorf("hits %+v, want only the aggregate hit", res.Verdict.Hits)
	}
}

func TestMatchedReachIsCappedButCountIsNot(t *testing.T) {
	var models []string
	for i := 0; i < 150; i++ {
		models = append(models, `{"name": "m`+string(rune('a'+i%26))+strings.Repeat("x", i/26)+`", "mechanisms": null}`)
	}
	cs := mustChangeset(t, `{"changeset_version": 1, "changes": [{"model": "s", "column": "c", "kind": "added",
		"reach": {"resolved": true, "models": [`+strings.Join(models, ",")+`], "columns": null, "exposures": []}}]}`)
	p, err := Load([]byte(rule("{ reach: { kind: model } }", `[ { type: warn }, { type: notify, channel: c, target: t, message: "{reach.count}" } ]`)), "p.yml")
	if err != nil {
		t.Fatal(err)
	}
	v := mustEvaluate(t, p, cs).Verdict
	if got := len(v.Hits[0].MatchedReach); got != 100 {
		t.Errorf("matched_reach holds %d names, want 100", got)
	}
	if v.Notifications[0].Message != "150" {
		t.Errorf("{reach.count} = %s, want 150", v.Notifications[0].Message)
	}
}

// TestAggregateMatchesEachObjectOnce: an aggregate rule over changes that
// reach the same objects names and counts each object once, a column by
// model.column — also where that reads like a model's name.
func TestAggregateMatchesEachObjectOnce(t *testing.T) {
	change := func(model string) string {
		return `{"model": "` + model + `", "column": "c", "kind": "logic_changed", "semantic": "meaning_changed",
			"reach": {"resolved": true, "models": [{"name": "b", "mechanisms": ["derived_recompute"]}, {"name": "b.x", "mechanisms": ["derived_recompute"]}],
			"columns": [{"model": "b", "column": "x", "mechanism": "derived_recompute"}, {"model": "b", "column": "y", "mechanism": "derived_recompute"}], "exposures": []}}`
	}
	cs := mustChangeset(t, `{"changeset_version": 1, "changes": [`+change("a1")+`, `+change("a2")+`, `+change("a3")+`]}`)
	for _, tc := range []struct {
		predicate string
		count     string
		names     []string
	}{
		{"{ reach: { kind: model } }", "2", []string{"b", "b.x"}},
		{"{ reach: { kind: column } }", "2", []string{"b.x", "b.y"}},
		{"{ all: [ { reach: { kind: model } }, { reach: { kind: column } } ] }", "3", []string{"b", "b.x", "b.y"}},
	} {
		p, err := Load([]byte(`version: 1
rules:
  - id: r
    scope: aggregate
    predicate: `+tc.predicate+`
    action: [ { type: warn }, { type: notify, channel: c, target: t, message: "{reach.count}" } ]
`), "p.yml")
		if err != nil {
			t.Fatal(err)
		}
		v := mustEvaluate(t, p, cs).Verdict
		if !cmp.Equal(v.Hits[0].MatchedReach, tc.names) || v.Notifications[0].Message != tc.count {
			t.Errorf("%s: matched %q, count %s; want %q, %s", tc.predicate, v.Hits[0].MatchedReach, v.Notifications[0].Message, tc.names, tc.count)
		}
	}
}

// TestEvaluateStopsWhenTheContextEnds: the engine returns the context's
// error once it has ended, and looks at it while it works through many
// changes, in both scopes.
func TestEvaluateStopsWhenTheContextEnds(t *testing.T) {
	var changes []string
	for i := 0; i < 2000; i++ {
		changes = append(changes, `{"model": "m`+strconv.Itoa(i)+`", "column": "c", "kind": "added",
			"reach": {"resolved": true, "models": [], "columns": null, "exposures": []}}`)
	}
	cs := mustChangeset(t, `{"changeset_version": 1, "changes": [`+strings.Join(changes, ",")+`]}`)
	for _, scope := range []string{"change", "aggregate"} {
		p, err := Load([]byte("version: 1\nrules:\n  - id: r\n    scope: "+scope+"\n    predicate: { reach: { kind: model } }\n    action: { type: warn }\n"), "p.yml")
		if err != nil {
			t.Fatal(err)
		}
		ended, cancel := context.WithCancel(t.Context())
		cancel()
		for _, ctx := range []context.Context{ended, testctx.StopAfter(t.Context(), 2)} {
			if res, err := Evaluate(ctx, p, cs); !errors.Is(err, context.Canceled) || res != nil {
				t.Errorf("%s scope: %v, %v", scope, res, err)
			}
		}
	}
}

func TestMarkdown(t *testing.T) {
	p, err := Load([]byte(`version: 1
rules:
  - id: test-break
    predicate: { structural: { fact: provable_test_break } }
    action: { type: block }
  - id: pr-critical
    scope: aggregate
    predicate: { all: [ { change: { field: breaking, op: is_true } }, { reach: { kind: model } } ] }
    action: [ { type: block }, { type: add-to-test-set } ]
  - id: gold
    predicate: { meta: { key: tier, op: eq, value: gold } }
    action: [ { type: block } ]
  - id: fyi
    predicate: { change: { field: kind, op: eq, value: removed } }
    action: { type: warn }
`), "p.yml")
	if err != nil {
		t.Fatal(err)
	}
	cs := mustChangeset(t, `{"changeset_version": 1, "models": {"m": {"meta": {"tier": "gold"}, "columns": {}}},
		"changes": [{"model": "m", "column": "c", "kind": "removed", "provable_test_break": true,
		"reach": {"resolved": true, "models": [{"name": "down", "mechanisms": null}], "columns": null, "exposures": []}}]}`)
	got := mustEvaluate(t, p, cs).Markdown()
	want := "### Policy verdict: BLOCK\n" +
		"⛔ **Blocked until** the downstream / schema absorbs it (update the test or restore the column) (`test-break`); " +
		"the change is no longer breaking / it no longer reaches the flagged object (`pr-critical`); " +
		"the change no longer matches the rule (`gold`) — the gate re-runs on every push and lifts itself; no override needed.\n" +
		"\n**block (3)**\n" +
		"- `test-break` — `m.c`\n" +
		"- `pr-critical` — whole PR → `down`\n" +
		"- `gold` — `m.c`\n" +
		"\n**warn (1)**\n" +
		"- `fyi` — `m.c`\n" +
		"\n**Build set:** none · **Test set:** `down`\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("markdown (-want +got):\n%s", diff)
	}

	empty := mustEvaluate(t, p, mustChangeset(t, `{"changeset_version": 1, "changes": []}`)).Markdown()
	if empty != "### Policy verdict: ALLOW — no rule fired (4 rules evaluated)\n" {
		t.Errorf("allow without hits: %q", empty)
	}
}
