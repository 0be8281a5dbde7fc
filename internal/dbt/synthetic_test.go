package dbt

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/policy"
)

// project describes one side of a synthetic dbt project; manifest() and
// catalog() render it as dbt would.
type project struct {
	models    []model
	tests     []test
	exposures []exposure
	extra     map[string][]string // other resources (metrics, semantic models) → parents
	noChild   bool                // omit child_map, forcing the depends_on fallback
	adapter   string              // metadata.adapter_type; "" for none
}

type model struct {
	uid, name, version, compiled, checksum string
	deps                                   []string
	meta, configMeta                       map[string]any
	docs                                   map[string]map[string]any // documented column → meta
	catalog                                map[string]string         // column → type; nil = not in the catalog
}

type test struct {
	uid, name, attached, column string
	kwargs                      map[string]any
	deps                        []string
}

type exposure struct {
	uid, name, typ string
	deps           []string
	meta           map[string]any
}

func (p project) manifest(t testing.TB) *Manifest {
	t.Helper()
	nodes := map[string]any{}
	children := map[string][]string{}
	link := func(child string, parents []string) {
		if _, ok := children[child]; !ok {
			children[child] = []string{}
		}
		for _, parent := range parents {
			children[parent] = append(children[parent], child)
		}
	}
	for _, m := range p.models {
		cols := map[string]any{}
		for c, meta := range m.docs {
			cols[c] = map[string]any{"name": c, "meta": meta}
		}
		schema, alias := "marts", m.name
		nodes[m.uid] = map[string]any{
			"resource_type": resourcePrefix(m.uid), "name": m.name, "package_name": strings.Split(m.uid, ".")[1],
			"version": nilIfEmpty(m.version), "database": "wh", "schema": schema, "alias": alias,
			"meta": m.meta, "config": map[string]any{"meta": m.configMeta}, "columns": cols,
			"checksum": map[string]any{"name": "sha256", "checksum": m.checksum}, "compiled_code": m.compiled,
			"depends_on": map[string]any{"nodes": m.deps},
		}
		link(m.uid, m.deps)
	}
	for _, ts := range p.tests {
		nodes[ts.uid] = map[string]any{
			"resource_type": "test", "name": ts.uid, "attached_node": nilIfEmpty(ts.attached), "column_name": nilIfEmpty(ts.column),
			"test_metadata": map[string]any{"name": ts.name, "kwargs": ts.kwargs},
			"depends_on":    map[string]any{"nodes": ts.deps},
		}
		link(ts.uid, ts.deps)
	}
	exposures := map[string]any{}
	for _, e := range p.exposures {
		exposures[e.uid] = map[string]any{
			"name": e.name, "type": e.typ, "owner": map[string]any{"name": "BI", "email": nil},
			"meta": e.meta, "depends_on": map[string]any{"nodes": e.deps}, "label": nil, "maturity": "high", "url": nil,
		}
		link(e.uid, e.deps)
	}
	metrics := map[string]any{}
	for uid, parents := range p.extra {
		metrics[uid] = map[string]any{"depends_on": map[string]any{"nodes": parents}}
		link(uid, parents)
	}
	doc := map[string]any{
		"metadata":  map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json", "dbt_version": "1.11.2"},
		"nodes":     nodes,
		"exposures": exposures,
		"metrics":   metrics,
	}
	if p.adapter != "" {
		doc["metadata"].(map[string]any)["adapter_type"] = p.adapter
	}
	if !p.noChild {
		for k := range children {
			sort.Strings(children[k])
		}
		doc["child_map"] = children
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(data, "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (p project) catalog(t testing.TB) *Catalog {
	t.Helper()
	nodes := map[string]any{}
	for _, m := range p.models {
		if m.catalog == nil {
			continue
		}
		cols := map[string]any{}
		i := 0
		for c, typ := range m.catalog {
			i++
			cols[strings.ToUpper(c)] = map[string]any{"name": strings.ToUpper(c), "type": typ, "index": i}
		}
		nodes[m.uid] = map[string]any{"columns": cols}
	}
	data, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/catalog/v1.json"},
		"nodes":    nodes,
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := ReadCatalog(data, "catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// roundTrip checks that a built changeset is one the engine accepts as JSON.
func roundTrip(t *testing.T, cs *policy.Changeset) {
	t.Helper()
	data, err := json.Marshal(cs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := policy.ReadChangeset(data, "built.json"); err != nil {
		t.Fatalf("the built changeset does not read back: %v", err)
	}
}

// summary is one change in a compact comparable form.
type summary struct {
	Subject, Kind, Detail string
	Break                 []string
	Resolved              bool
	Models, Exposures     []string
}

func summarize(cs *policy.Changeset) []summary {
	var out []summary
	for _, c := range cs.Changes {
		s := summary{Subject: c.Model + "." + c.Column, Kind: c.Kind, Break: c.BrokenTests, Resolved: c.Reach.Resolved}
		if c.Detail != nil {
			s.Detail = *c.Detail
		}
		for _, m := range c.Reach.Models {
			s.Models = append(s.Models, m.Name)
		}
		for _, e := range c.Reach.Exposures {
			s.Exposures = append(s.Exposures, e.Name)
		}
		out = append(out, s)
	}
	return out
}

const (
	stg  = "model.shop.stg_orders"
	mart = "model.shop.orders"
	rpt  = "model.shop.report"
)

func baseProject() project {
	return project{
		models: []model{
			{uid: stg, name: "stg_orders", compiled: "select id, amount from raw", checksum: "s1",
				docs: map[string]map[string]any{"ID": {"pii": false}}, catalog: map[string]string{"id": "integer", "amount": "decimal"}},
			{uid: mart, name: "orders", compiled: "select id, amount, status from stg", checksum: "m1", deps: []string{stg},
				meta: map[string]any{"tier": "silver"}, configMeta: map[string]any{"tier": "gold"},
				docs:    map[string]map[string]any{"status": {"pii": true}, "id": {}},
				catalog: map[string]string{"id": "integer", "amount": "decimal", "status": "varchar"}},
			{uid: rpt, name: "report", compiled: "select * from orders", checksum: "r1", deps: []string{mart}},
		},
		tests: []test{
			{uid: "test.shop.not_null_orders_status", name: "not_null", attached: mart, column: "status", deps: []string{mart}},
			{uid: "test.shop.rel_report", name: "relationships", attached: rpt, column: "order_id", deps: []string{rpt, mart},
				kwargs: map[string]any{"to": "ref('orders')", "field": "ID"}},
		},
		exposures: []exposure{{uid: "exposure.shop.Exec board", name: "Exec board", typ: "dashboard", deps: []string{"metric.shop.revenue"}, meta: map[string]any{"tier": "gold"}}},
		extra:     map[string][]string{"metric.shop.revenue": {rpt}},
	}
}

func TestBuildKindsReachAndBreaks(t *testing.T) {
	base := baseProject()
	head := baseProject()
	// stg_orders: reformatted only. orders: amount retyped, status dropped
	// (its test left behind in head), a column added, SQL changed.
	head.models[0].compiled = "select\n  id,\n  amount -- money\nfrom raw"
	head.models[0].checksum = "s2"
	head.models[1].compiled = "select id, amount::bigint as amount, 1 as flag from stg"
	head.models[1].checksum = "m2"
	head.models[1].catalog = map[string]string{"id": "INTEGER ", "amount": "bigint", "flag": "integer"}
	cs, _, err := Build(t.Context(), Inputs{Base: base.manifest(t), Head: head.manifest(t), BaseCatalog: base.catalog(t), HeadCatalog: head.catalog(t)})
	if err != nil {
		t.Fatal(err)
	}
	reach := []string{"report"}
	exposures := []string{"Exec board"}
	want := []summary{
		{Subject: "orders.amount", Kind: "type_changed", Detail: "decimal -> bigint", Resolved: true, Models: reach, Exposures: exposures},
		{Subject: "orders.flag", Kind: "added", Resolved: true, Models: reach, Exposures: exposures},
		{Subject: "orders.id", Kind: "logic_changed", Resolved: true, Models: reach, Exposures: exposures},
		{Subject: "orders.status", Kind: "removed", Break: []string{"test.shop.not_null_orders_status"}, Resolved: true, Models: reach, Exposures: exposures},
	}
	if diff := cmp.Diff(want, summarize(cs)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	orders := cs.Models["orders"]
	if orders.Meta["tier"] != "gold" {
		t.Errorf("config.meta must win over meta: %v", orders.Meta)
	}
	if diff := cmp.Diff(map[string]*policy.Column{"status": {Meta: map[string]any{"pii": true}}}, orders.Columns); diff != "" {
		t.Errorf("orders columns: the removed column keeps its base meta (-want +got):\n%s", diff)
	}
	if e := cs.Exposures["Exec board"]; e == nil || e.Type != "dashboard" || e.Meta["tier"] != "gold" || e.UniqueID != "exposure.shop.Exec board" {
		t.Errorf("exposure entry %+v", e)
	}
	if _, ok := cs.Models["report"]; !ok {
		t.Error("a reached model must have a models entry")
	}
	if c := cs.Changes[2]; c.Semantic == nil || *c.Semantic != policy.SemanticIndeterminate || cs.Changes[0].Semantic != nil {
		t.Error("only logic_changed carries semantic indeterminate at level 1")
	}
	roundTrip(t, cs)
}

func TestBuildDeletedModelAndRelationshipsBreak(t *testing.T) {
	base := baseProject()
	head := baseProject()
	head.models = head.models[:1] // orders and report deleted …
	head.models = append(head.models, model{uid: rpt, name: "report", compiled: "select * from stg", checksum: "r2", deps: []string{stg}})
	head.tests = head.tests[1:] // the deleted model's own test went with it
	// … but report survives re-pointed, and its relationships test to orders stays.
	cs, _, err := Build(t.Context(), Inputs{Base: base.manifest(t), Head: head.manifest(t), BaseCatalog: base.catalog(t), HeadCatalog: head.catalog(t)})
	if err != nil {
		t.Fatal(err)
	}
	broken := []string{"test.shop.rel_report"}
	var got []summary
	for _, s := range summarize(cs) {
		if strings.HasPrefix(s.Subject, "orders.") {
			got = append(got, s)
		}
	}
	// Removed columns of a deleted model: reach from the base graph.
	want := []summary{
		{Subject: "orders.amount", Kind: "removed", Break: broken, Resolved: true, Models: []string{"report"}, Exposures: []string{"Exec board"}},
		{Subject: "orders.id", Kind: "removed", Break: broken, Resolved: true, Models: []string{"report"}, Exposures: []string{"Exec board"}},
		{Subject: "orders.status", Kind: "removed", Break: broken, Resolved: true, Models: []string{"report"}, Exposures: []string{"Exec board"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

func TestBuildWithoutCatalogs(t *testing.T) {
	base := baseProject()
	head := baseProject()
	head.models[1].checksum = "m2"
	head.models[1].compiled = "" // not compiled: the checksum decides
	head.models[2].checksum = "r2"
	head.models[2].compiled = "select * from orders where 1=1"
	head.noChild = true // and the graph comes from depends_on
	cs, _, err := Build(t.Context(), Inputs{Base: base.manifest(t), Head: head.manifest(t)})
	if err != nil {
		t.Fatal(err)
	}
	want := []summary{
		// Documented columns only, lowercased; none documented → "*".
		{Subject: "orders.id", Kind: "logic_changed", Resolved: true, Models: []string{"report"}, Exposures: []string{"Exec board"}},
		{Subject: "orders.status", Kind: "logic_changed", Resolved: true, Models: []string{"report"}, Exposures: []string{"Exec board"}},
		{Subject: "report.*", Kind: "logic_changed", Resolved: true, Exposures: []string{"Exec board"}},
	}
	if diff := cmp.Diff(want, summarize(cs), cmp.Comparer(func(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") })); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

func TestBuildNamesVersionsAndCollisions(t *testing.T) {
	base := project{models: []model{
		{uid: "model.shop.customers.v1", name: "Customers", version: "1", checksum: "a"},
		{uid: "model.shop.dup", name: "dup", checksum: "a"},
	}}
	head := project{models: []model{
		{uid: "model.shop.customers.v1", name: "Customers", version: "1", checksum: "b"},
		{uid: "model.shop.dup", name: "dup", checksum: "b"},
		{uid: "model.other.dup", name: "dup", checksum: "b"},
	}}
	cs, _, err := Build(t.Context(), Inputs{Base: base.manifest(t), Head: head.manifest(t)})
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, c := range cs.Changes {
		subjects = append(subjects, c.Model+"."+c.Column+" "+c.Kind)
	}
	want := []string{"customers.v1.* logic_changed", "model.other.dup.* added", "model.shop.dup.* logic_changed"}
	if diff := cmp.Diff(want, subjects); diff != "" {
		t.Errorf("subjects (-want +got):\n%s", diff)
	}
}

func TestBuildRenameWithRenamedTestIsNotABreak(t *testing.T) {
	base := baseProject()
	head := baseProject()
	head.models[1].catalog = map[string]string{"id": "integer", "amount": "decimal", "order_status": "varchar"}
	head.tests[0] = test{uid: "test.shop.not_null_orders_order_status", name: "not_null", attached: mart, column: "order_status", deps: []string{mart}}
	cs, _, err := Build(t.Context(), Inputs{Base: base.manifest(t), Head: head.manifest(t), BaseCatalog: base.catalog(t), HeadCatalog: head.catalog(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs.Changes {
		if c.ProvableTestBreak {
			t.Errorf("%s.%s is a provable break, but its test was renamed with it", c.Model, c.Column)
		}
	}
	if len(cs.Changes) != 2 {
		t.Errorf("a rename is removed + added, got %+v", summarize(cs))
	}
}

func TestResolveRef(t *testing.T) {
	base := project{models: []model{
		{uid: "model.shop.customers.v1", name: "customers", version: "1"},
		{uid: "model.shop.customers.v2", name: "customers", version: "2"},
		{uid: "model.shop.orders", name: "orders"},
		{uid: "model.pkg.orders", name: "orders"},
	}}
	m := base.manifest(t)
	m.Nodes["model.shop.customers.v1"].LatestVersion = json.Number("2")
	m.Nodes["model.shop.customers.v2"].LatestVersion = json.Number("2")
	b := &builder{base: newSide(m, nil)}
	tests := map[string]string{
		"ref('customers')":               "model.shop.customers.v2",
		"ref('customers', v=1)":          "model.shop.customers.v1",
		`ref("customers", version="2")`:  "model.shop.customers.v2",
		"ref('pkg', 'orders')":           "model.pkg.orders",
		"ref('orders')":                  "", // ambiguous across packages
		"source('raw', 'orders')":        "",
		"{{ ref('shop', 'customers') }}": "model.shop.customers.v2",
		"ref('missing')":                 "",
	}
	for to, want := range tests {
		if got := b.resolveRef(to); got != want {
			t.Errorf("resolveRef(%q) = %q, want %q", to, got, want)
		}
	}
}

type fakeGovernance map[string]map[string]any

func (f fakeGovernance) Governance(relation string) (map[string]any, bool) {
	r, ok := f[relation]
	return r, ok
}

// TestBuildGovernanceAwareMeta: with a governance lookup, a model's meta
// carries the rule of the relation it writes (database.schema.alias).
func TestBuildGovernanceAwareMeta(t *testing.T) {
	base := baseProject()
	head := baseProject()
	head.models[1].checksum = "m2"
	head.models[1].compiled = "select 2"
	cs, _, err := Build(t.Context(), Inputs{
		Base: base.manifest(t), Head: head.manifest(t),
		Governance: fakeGovernance{"wh.marts.orders": {"classification": "pii", "dataspace": map[string]any{"expose": false}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"tier": "gold", "governance": map[string]any{"classification": "pii", "dataspace": map[string]any{"expose": false}}}
	if diff := cmp.Diff(want, cs.Models["orders"].Meta); diff != "" {
		t.Errorf("orders meta (-want +got):\n%s", diff)
	}
	if _, ok := cs.Models["report"].Meta["governance"]; ok {
		t.Error("a relation without a governance rule must get no governance meta")
	}
	res, err := policy.Check(t.Context(), []byte("version: 1\nrules:\n  - id: pii\n    predicate: { meta: { key: governance.classification, op: eq, value: pii } }\n    action: { type: block }\n"), "p.yml", cs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict.Decision != policy.DecisionBlock {
		t.Errorf("a rule on governance.classification did not fire: %+v", res.Verdict)
	}
}

func TestBuildNeedsBothManifests(t *testing.T) {
	if _, _, err := Build(t.Context(), Inputs{Head: baseProject().manifest(t)}); err == nil {
		t.Error("Build without a base manifest must fail")
	}
}
