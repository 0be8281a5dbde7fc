package dbt

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/policy"
	"github.com/celine-eu/governanced/internal/propagate/propagatetest"
)

// governedProject: a seed of customers, a staging model hashing one
// column, a mart and a report over it. Only the mart changes, so level 2
// reads the staging model only to infer governance.
func governedProject(martSQL string) project {
	return project{models: []model{
		{uid: "seed.shop.raw_customers", name: "raw_customers", checksum: "r1",
			catalog: map[string]string{"id": "integer", "email": "text", "name": "text"}},
		{uid: "model.shop.stg_customers", name: "stg_customers", checksum: "s1", deps: []string{"seed.shop.raw_customers"},
			compiled: "select id, email, md5(name) as name_hash from wh.marts.raw_customers",
			catalog:  map[string]string{"id": "integer", "email": "text", "name_hash": "text"}},
		{uid: "model.shop.customers", name: "customers", checksum: martSQL, deps: []string{"model.shop.stg_customers"},
			compiled: martSQL, catalog: map[string]string{"id": "integer", "email": "text", "name_hash": "text"}},
		{uid: "model.shop.report", name: "report", checksum: "p1", deps: []string{"model.shop.customers"},
			compiled: "select email, name_hash from customers", catalog: map[string]string{"email": "text", "name_hash": "text"}},
	}}
}

var shopGovernance = propagatetest.Rules{
	"wh.marts.raw_customers": propagatetest.Rule("PII", "secret", false, false),
	"wh.marts.customers":     propagatetest.Rule("green", "open", true, false),
}

// TestBuildLevel2InferredGovernance: with Rules, every changed and reached
// column carries what it inherits under governance.inferred, read through
// models level 2 did not otherwise need; without them, none does.
func TestBuildLevel2InferredGovernance(t *testing.T) {
	base := governedProject("select id, email, name_hash from stg_customers")
	head := governedProject("select id, lower(email) as email, upper(name_hash) as name_hash from stg_customers")
	in := Inputs{Base: base.manifest(t), Head: head.manifest(t), BaseCatalog: base.catalog(t), HeadCatalog: head.catalog(t)}
	plain, _, err := BuildLevel2(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range plain.Models {
		for col, c := range m.Columns {
			if _, ok := c.Meta["governance"]; ok {
				t.Errorf("%s.%s carries governance without rules", name, col)
			}
		}
	}

	in.Rules = shopGovernance
	cs, warnings, err := BuildLevel2(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %v", warnings)
	}
	roundTrip(t, cs)
	inferred := func(model, column string) map[string]any {
		t.Helper()
		m := cs.Models[model]
		if m == nil || m.Columns[column] == nil {
			t.Fatalf("%s.%s is not in the changeset's models", model, column)
		}
		g, _ := m.Columns[column].Meta["governance"].(map[string]any)
		inf, _ := g["inferred"].(map[string]any)
		if inf == nil {
			t.Fatalf("%s.%s carries no governance.inferred: %v", model, column, m.Columns[column].Meta)
		}
		return inf
	}
	hop := func(relation, dataset, column, mechanism string, through ...any) map[string]any {
		h := map[string]any{"relation": relation, "dataset": dataset, "column": column}
		if mechanism == "" {
			h["declared"] = map[string]any{"classification": "pii", "access_level": "restricted"}
		} else {
			h["mechanism"] = mechanism
		}
		if len(through) > 0 {
			h["through"] = through
		}
		return h
	}
	want := map[string]any{
		"classification": "pii", "access_level": "restricted", "complete": true, "through": []any{"lower"},
		"rowset": map[string]any{"classification": "pii", "access_level": "restricted", "complete": true},
		"path": []any{
			hop("raw_customers", "wh.marts.raw_customers", "email", ""),
			hop("stg_customers", "wh.marts.stg_customers", "email", "direct_passthrough"),
			hop("customers", "wh.marts.customers", "email", "derived_recompute", "lower"),
		},
	}
	if diff := cmp.Diff(want, inferred("customers", "email")); diff != "" {
		t.Errorf("customers.email (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"lower"}, inferred("report", "email")["through"]); diff != "" {
		t.Errorf("report.email through (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"md5", "upper"}, inferred("customers", "name_hash")["through"]); diff != "" {
		t.Errorf("customers.name_hash through (-want +got):\n%s", diff)
	}
	// The column's own meta keeps the model's governance reachable: the
	// relation's rule is under the model's meta, the inference under the
	// column's, and a rule reads both.
	pol := `version: 1
rules:
  - id: pii-into-exposed-mart
    predicate:
      all:
        - meta: { key: governance.inferred.classification, op: eq, value: pii }
        - meta: { key: governance.expose, op: is_true }
        - not: { meta: { key: governance.inferred.through, op: intersects, value: [md5, sha2] } }
    action: { type: block }
`
	in.Governance = fakeGovernance{"wh.marts.customers": {"expose": true, "classification": "green"}}
	cs, _, err = BuildLevel2(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	res, err := policy.Check(t.Context(), []byte(pol), "p.yml", cs)
	if err != nil {
		t.Fatal(err)
	}
	var hits []string
	for _, h := range res.Verdict.Hits {
		hits = append(hits, *h.ChangeModel+"."+*h.ChangeColumn)
	}
	if diff := cmp.Diff([]string{"customers.email"}, hits); diff != "" {
		t.Errorf("hits (-want +got):\n%s", diff)
	}
}
