package dbt

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/propagate/propagatetest"
)

// pivotProject: a seed of payments, a model pivoting their amounts by
// method, and a report reading one pivoted column.
func pivotProject(agg string) project {
	pivot := "select * from wh.marts.raw_payments pivot (" + agg + "(amount) as total for method in ('card', 'coupon'))"
	return project{models: []model{
		{uid: "seed.shop.raw_payments", name: "raw_payments", checksum: "r1",
			catalog: map[string]string{"order_id": "integer", "method": "text", "amount": "numeric"}},
		{uid: "model.shop.by_method", name: "by_method", checksum: agg, deps: []string{"seed.shop.raw_payments"},
			compiled: pivot, catalog: map[string]string{"order_id": "integer", "card_total": "numeric", "coupon_total": "numeric"}},
		{uid: "model.shop.report", name: "report", checksum: "p1", deps: []string{"model.shop.by_method"},
			compiled: "select order_id, card_total from by_method", catalog: map[string]string{"order_id": "integer", "card_total": "numeric"}},
	}}
}

// TestBuildLevel2Pivot: a model that pivots is read at level 2: an edit of
// its aggregate changes the pivoted columns, not the one it groups by, and
// reaches the report through the column it reads; the governance of the
// amounts pivoted is inferred for the pivoted columns.
func TestBuildLevel2Pivot(t *testing.T) {
	base, head := pivotProject("sum"), pivotProject("avg")
	in := Inputs{Base: base.manifest(t), Head: head.manifest(t), BaseCatalog: base.catalog(t), HeadCatalog: head.catalog(t),
		Rules: propagatetest.Rules{"wh.marts.raw_payments": propagatetest.Rule("PII", "secret", false, false)}}
	cs, warnings, err := BuildLevel2(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %v", warnings)
	}
	want := []summary{
		{Subject: "by_method.card_total", Kind: "logic_changed", Resolved: true, Models: []string{"report"}},
		{Subject: "by_method.coupon_total", Kind: "logic_changed", Resolved: true},
	}
	if diff := cmp.Diff(want, summarize(cs)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	m := cs.Models["by_method"]
	if m == nil || m.Columns["card_total"] == nil {
		t.Fatalf("by_method.card_total is not in the changeset's models")
	}
	g, _ := m.Columns["card_total"].Meta["governance"].(map[string]any)
	if inf, _ := g["inferred"].(map[string]any); inf == nil || inf["classification"] != "pii" {
		t.Errorf("by_method.card_total inferred governance: %v", g)
	}
	roundTrip(t, cs)
}
