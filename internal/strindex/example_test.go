package strindex_test

import (
	"fmt"

	"github.com/celine-eu/governanced/internal/strindex"
)

func Example() {
	ix := strindex.New([]string{"silver.meteo", "gold.kpi", "silver.meteo"})
	fmt.Println(ix.Lookup("gold.kpi"), ix.Lookup("silver.meteo"), ix.Lookup("bronze.raw"))
	// Output: 1 0 -1
}
