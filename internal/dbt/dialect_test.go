package dbt

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sparkProject: a Databricks model that explodes each order's items with a
// LATERAL VIEW and reads a field of a JSON string, and a report on it.
func sparkProject(adapter, field string) project {
	return project{adapter: adapter, models: []model{
		{uid: "seed.shop.raw_orders", name: "raw_orders", checksum: "r1",
			catalog: map[string]string{"order_id": "int", "items": "array<string>", "payload": "string"}},
		{uid: "model.shop.order_items", name: "order_items", checksum: field, deps: []string{"seed.shop.raw_orders"},
			compiled: "select o.order_id, i.item, o.payload:" + field + "::string as region from `wh`.`marts`.`raw_orders` o lateral view outer explode(o.items) i as item",
			catalog:  map[string]string{"order_id": "int", "item": "string", "region": "string"}},
		{uid: "model.shop.report", name: "report", checksum: "p1", deps: []string{"model.shop.order_items"},
			compiled: "select region, count(*) as n from order_items group by region", catalog: map[string]string{"region": "string", "n": "bigint"}},
	}}
}

// TestBuildLevel2Databricks: a Databricks project's models are read at
// level 2 in its SQL (spark, dbt-spark's adapter, too): an edit of the JSON
// field one column reads changes that column alone and reaches the report
// through it. An adapter without a parser is compared at model level, and
// says why.
func TestBuildLevel2Databricks(t *testing.T) {
	for _, adapter := range []string{"databricks", "spark"} {
		base, head := sparkProject(adapter, "region"), sparkProject(adapter, "area")
		cs, warnings, err := BuildLevel2(t.Context(), Inputs{Base: base.manifest(t), Head: head.manifest(t), BaseCatalog: base.catalog(t), HeadCatalog: head.catalog(t)})
		if err != nil {
			t.Fatal(err)
		}
		if len(warnings) > 0 {
			t.Errorf("%s: warnings: %v", adapter, warnings)
		}
		want := []summary{{Subject: "order_items.region", Kind: "logic_changed", Resolved: true, Models: []string{"report"}}}
		if diff := cmp.Diff(want, summarize(cs)); diff != "" {
			t.Errorf("%s: changes (-want +got):\n%s", adapter, diff)
		}
	}
	base, head := sparkProject("trino", "region"), sparkProject("trino", "area")
	_, warnings, err := BuildLevel2(t.Context(), Inputs{Base: base.manifest(t), Head: head.manifest(t), BaseCatalog: base.catalog(t), HeadCatalog: head.catalog(t)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(warnings, "\n"), `adapter "trino" has no SQL parser`) {
		t.Errorf("trino: warnings %q, want one saying it has no SQL parser", warnings)
	}
}
