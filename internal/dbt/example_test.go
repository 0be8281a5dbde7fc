package dbt_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/celine-eu/governanced/internal/dbt"
)

func ExampleBuild() {
	dir := "../../testdata/reference/dbt/dbt-bouncer/pair-a2094336-f5b6f07b"
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			panic(err)
		}
		return data
	}
	var in dbt.Inputs
	var err error
	if in.Base, err = dbt.ReadManifest(read("base/manifest.json"), "base/manifest.json"); err != nil {
		fmt.Println(err)
		return
	}
	if in.Head, err = dbt.ReadManifest(read("head/manifest.json"), "head/manifest.json"); err != nil {
		fmt.Println(err)
		return
	}
	in.BaseCatalog, _ = dbt.ReadCatalog(read("base/catalog.json"), "base/catalog.json")
	in.HeadCatalog, _ = dbt.ReadCatalog(read("head/catalog.json"), "head/catalog.json")

	cs, _, err := dbt.Build(context.Background(), in)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range cs.Changes {
		if c.Model == "orders" && (c.Kind == "removed" || c.Kind == "added") {
			fmt.Println(c.Model, c.Column, c.Kind, "provable test break:", c.ProvableTestBreak)
		}
	}
	// Output:
	// orders customer_id removed provable test break: false
	// orders customer_id_fk added provable test break: false
	// orders order_id removed provable test break: false
	// orders order_id_pk added provable test break: false
}
