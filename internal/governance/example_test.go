package governance_test

import (
	"encoding/json"
	"fmt"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/yaml11"
)

const exampleDoc = `
defaults:
  access_level: internal
  tags: [energy]
  ownership: [{name: rec, type: DATA_OWNER}]
sources:
  datasets.ds_prod_gold.weather_hourly:
    tags: [weather, gold]
    expose: true
  datasets.ds_prod_gold.*:
    access_level: restricted
`

func ExampleConfig_Resolve() {
	cfg, err := governance.Parse([]byte(exampleDoc), "governance.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"datasets.ds_prod_gold.weather_hourly", "datasets.ds_prod_gold.pv_daily", "datasets.other"} {
		rule, match := cfg.Resolve(name)
		body, _ := json.Marshal(rule)
		fmt.Println(match.Kind, string(body))
	}
	// Output:
	// exact {"expose":true,"ownership":[{"name":"rec","type":"DATA_OWNER"}],"access_level":"internal","tags":["energy","gold","weather"]}
	// glob {"ownership":[{"name":"rec","type":"DATA_OWNER"}],"access_level":"restricted","tags":["energy"]}
	// defaults {"ownership":[{"name":"rec","type":"DATA_OWNER"}],"access_level":"internal","tags":["energy"]}
}

func ExampleMergeRules() {
	parse := func(text string) *governance.Rule {
		n, _ := yaml11.Parse([]byte(text))
		r, _ := governance.ParseRule(n, "block.yaml")
		return r
	}
	base := parse("{expose: true, tags: [b, a], dataspace: {expose: true, purpose: [x]}}")
	// An overlay withdraws with an explicit false; silence would inherit.
	overlay := parse("{expose: false, dataspace: {purpose: [y]}}")
	merged := governance.MergeRules(base, overlay)
	body, _ := json.Marshal(merged)
	fmt.Println(string(body))
	fmt.Println(governance.ExposureConflict(merged) != "")
	// Output:
	// {"expose":false,"tags":["a","b"],"dataspace":{"purpose":["x","y"],"expose":true}}
	// true
}

func ExampleEffectiveExpose() {
	n, _ := yaml11.Parse([]byte("dataspace: {expose: true}"))
	r, _ := governance.ParseRule(n, "block.yaml")
	// expose is unstated, so the catalogue gate falls back to dataspace.expose.
	fmt.Println(governance.EffectiveExpose(r), governance.DataspaceExpose(r))
	// Output: true true
}

func ExampleBuildFacet() {
	n, _ := yaml11.Parse([]byte("{title: Meters, access_level: internal, retention_days: 0, dataspace: {medallion: gold}}"))
	r, _ := governance.ParseRule(n, "block.yaml")
	fmt.Println(string(governance.BuildFacet(r, "https://example.org/producer", true)))
	// Output: {"_producer":"https://example.org/producer","_schemaURL":"https://celine-eu.github.io/schema/GovernanceDatasetFacet.schema.json","title":"Meters","accessLevel":"internal","retentionDays":0,"medallion":"gold"}
}

func ExampleNormalizeAccessLevel() {
	for _, v := range []string{"SECRET", "Open", "public"} {
		level, err := governance.NormalizeAccessLevel(&v)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(*level)
	}
	// Output:
	// restricted
	// open
	// error: 'public' is not a valid GovernanceAccessLevel
}
