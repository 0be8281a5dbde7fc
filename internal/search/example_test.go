package search_test

import (
	"fmt"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/search"
)

func Example() {
	cfg, err := governance.Parse([]byte(`sources:
  datasets.ds_dev_gold.dwd_icon_d2_gusts:
    title: ICON-D2 Wind Gust Indicators
    tags: [dwd, icon-d2]
  datasets.ds_dev_silver.dwd_icon_d2_wind:
    title: ICON-D2 Wind Fields
`), "governance.yaml")
	if err != nil {
		panic(err)
	}
	ix := search.NewIndex("dwd", cfg)
	q, _ := search.ParseQuery("wind gust")
	ix.Match(q, cfg, nil, nil, func(pos int, m search.Match) {
		fmt.Println(cfg.Sources[pos].Key, m.Fields.Names())
	})
	// Output:
	// datasets.ds_dev_gold.dwd_icon_d2_gusts [key title]
}
