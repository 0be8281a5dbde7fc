package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/celine-eu/governanced/internal/policy"
)

// The seed's example 3: the legacy --fail-on tests gate as one rule.
const provableBreakPolicy = `version: 1
rules:
  - id: provable-break-blocks
    description: A change that provably breaks a dbt test must block (legacy --fail-on tests).
    scope: change
    predicate:
      structural: { fact: provable_test_break }
    action:
      - type: block
`

const twoChanges = `{
  "changeset_version": 1,
  "models": {"dim_accounts": {"meta": {"tier": "silver"}, "columns": {}}},
  "changes": [
    {"model": "dim_accounts", "column": "legacy_flag", "kind": "removed", "provable_test_break": true,
     "broken_tests": ["test.shop.not_null_dim_accounts_legacy_flag"],
     "reach": {"resolved": true, "models": [], "columns": null, "exposures": []}},
    {"model": "dim_accounts", "column": "balance", "kind": "logic_changed", "semantic": "equivalent",
     "reach": {"resolved": true, "models": [], "columns": null, "exposures": []}}
  ]
}`

func ExampleLoad() {
	p, err := policy.Load([]byte(provableBreakPolicy), "policy.yml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range p.Rules {
		fmt.Println(r.ID, r.Scope, r.Decision())
	}
	// Output: provable-break-blocks change block
}

func ExampleLoad_invalid() {
	_, err := policy.Load([]byte("version: 2\nrules: []\n"), "policy.yml")
	fmt.Println(err)
	// Output: policy.yml:1:10: version: policy version 2 has major 2; this engine knows major 1 only [version_unsupported]
}

func ExampleReadChangeset() {
	cs, err := policy.ReadChangeset([]byte(twoChanges), "changeset.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range cs.Changes {
		fmt.Println(c.Model, c.Column, c.Kind, "breaking:", c.Breaking())
	}
	// Output:
	// dim_accounts legacy_flag removed breaking: true
	// dim_accounts balance logic_changed breaking: false
}

func ExampleCheck() {
	cs, err := policy.ReadChangeset([]byte(twoChanges), "changeset.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := policy.Check(context.Background(), []byte(provableBreakPolicy), "policy.yml", cs)
	if err != nil {
		fmt.Println(err)
		return
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(map[string]any{"policy_verdict": res.Verdict})
	// Output:
	// {
	//   "policy_verdict": {
	//     "decision": "block",
	//     "hits": [
	//       {
	//         "rule_id": "provable-break-blocks",
	//         "decision": "block",
	//         "change_model": "dim_accounts",
	//         "change_column": "legacy_flag",
	//         "matched_reach": [],
	//         "actions": [
	//           "block"
	//         ]
	//       }
	//     ],
	//     "build_set": [],
	//     "test_set": [],
	//     "notifications": [],
	//     "evaluated_rules": 1,
	//     "fired_rules": 1
	//   }
	// }
}

func ExampleResult_Markdown() {
	cs, _ := policy.ReadChangeset([]byte(twoChanges), "changeset.json")
	p, _ := policy.Load([]byte(provableBreakPolicy), "policy.yml")
	res, _ := policy.Evaluate(context.Background(), p, cs)
	fmt.Print(res.Markdown())
	// Output:
	// ### Policy verdict: BLOCK
	// ⛔ **Blocked until** the downstream / schema absorbs it (update the test or restore the column) (`provable-break-blocks`) — the gate re-runs on every push and lifts itself; no override needed.
	//
	// **block (1)**
	// - `provable-break-blocks` — `dim_accounts.legacy_flag`
	//
	// **Build set:** none · **Test set:** none
}

// governanceTree stands in for a loaded governance tree.
type governanceTree map[string]map[string]any

func (g governanceTree) Governance(relation string) (map[string]any, bool) {
	rule, ok := g[relation]
	return rule, ok
}

func ExampleChangeset_AttachGovernance() {
	cs, _ := policy.ReadChangeset([]byte(`{"changeset_version": 1,
		"models": {"meters": {"relation": "datasets.ds_gold.meters", "meta": {"owner_team": "grid"}, "columns": {}}},
		"changes": [{"model": "meters", "column": "kwh", "kind": "logic_changed",
		             "reach": {"resolved": true, "models": [], "columns": null, "exposures": []}}]}`), "changeset.json")
	cs.AttachGovernance(governanceTree{
		"datasets.ds_gold.meters": {"classification": "pii", "dataspace": map[string]any{"expose": true}},
	})
	p, _ := policy.Load([]byte(`version: 1
rules:
  - id: pii-in-dataspace
    predicate:
      all:
        - meta: { key: governance.classification, op: eq, value: pii }
        - meta: { key: governance.dataspace.expose, op: is_true }
    action: { type: block }
`), "policy.yml")
	res, _ := policy.Evaluate(context.Background(), p, cs)
	v := res.Verdict
	fmt.Println(v.Decision, v.Hits[0].RuleID)
	// Output: block pii-in-dataspace
}
