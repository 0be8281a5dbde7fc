package owners_test

import (
	"fmt"
	"path/filepath"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/owners"
)

func ExampleLoad() {
	reg, err := owners.Load(filepath.Join("testdata", "dataset-api-owners.yaml"), owners.Options{Validate: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(reg.Len(), "owners")
	fmt.Println(reg.ByID("dso").ID) // an alias
	uri, _ := reg.CanonicalURI("example_dso")
	fmt.Println(uri)
	fmt.Println(reg.ByURI("https://www.dwd.de").ID)
	fmt.Println(reg.Contains("nobody"))
	// Output:
	// 6 owners
	// example_dso
	// https://example.org
	// dwd
	// false
}

func ExampleLoadAll() {
	reg, err := owners.LoadAll(filepath.Join("testdata", "merged-base.yaml"), filepath.Join("testdata", "merged-deploy.yaml"))
	if err != nil {
		panic(err)
	}
	for _, e := range reg.All() {
		fmt.Println(e.ID, *e.Name)
	}
	for _, w := range reg.Warnings() {
		fmt.Println(w.Code)
	}
	// Output:
	// rec Renewable Energy Community
	// dso Trentino Grid Operator
	// uni University
	// overridden
}

func ExampleResolveConfigOwnership() {
	reg, _ := owners.Load(filepath.Join("testdata", "dataset-api-owners.yaml"), owners.Options{Validate: true})
	cfg, _ := governance.Parse([]byte(`defaults: {}
sources:
  datasets.ds_dev_gold.grid_substations:
    ownership:
      - {name: grid-operator, type: DATA_OWNER}
      - {name: rec, type: DATA_STEWARD}
`), "governance.yaml")
	placeholders := map[string]string{"grid-operator": "example_dso"} // the deployment's map
	resolved, _, err := owners.ResolveConfigOwnership(cfg, reg, true, placeholders)
	if err != nil {
		panic(err)
	}
	rule, _ := resolved.Resolve("datasets.ds_dev_gold.grid_substations")
	for _, o := range rule.Ownership() {
		uri, _ := reg.CanonicalURI(o.Name)
		fmt.Println(o.Name, o.Type, uri)
	}
	_, _, err = owners.ResolveConfigOwnership(cfg, reg, true, nil)
	fmt.Println(err)
	// Output:
	// example_dso DATA_OWNER https://example.org
	// example_rec DATA_STEWARD https://example.com
	// unresolved owner name(s):
	//   - grid-operator: sources/datasets.ds_dev_gold.grid_substations
}
