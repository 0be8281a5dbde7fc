package check_test

import (
	"context"
	"fmt"
	"os"

	"github.com/celine-eu/governanced/internal/check"
)

// A tree whose dataspace offers name an owner the registry does not know: the
// check reports it, located at the dataset, and the run fails.
func ExampleRun() {
	rep, err := check.Run(context.Background(), check.Options{
		Paths:  []string{"apps/*"},
		Owners: []string{"owners.yaml"},
		Dir:    "../../testdata/check-cases/C25/tree",
	})
	if err != nil { // only a usage error: nothing was checked
		fmt.Println(err)
		return
	}
	for _, f := range rep.Findings {
		fmt.Printf("%s:%d:%d %s %s %s %s\n", f.File, f.Line, f.Column, f.Severity, f.Code, *f.Dataset, *f.Subject)
	}
	fmt.Println("ok:", rep.OK, "exit:", rep.ExitCode, "datasets:", rep.Summary.Datasets)
	rep.WriteText(os.Stdout)
	// Output:
	// apps/a/governance.yaml:8:3 error owner-unresolved datasets.gold.offer_unknown acme
	// ok: false exit: 1 datasets: 3
	// apps/a/governance.yaml:8:3: error: owner-unresolved [datasets.gold.offer_unknown]: ownership name "acme" resolves to no owner of the registry (by id, placeholder or alias): a dataspace offer must name a dataspace party
	// result: fail (errors=1, warnings=0, infos=0, strict=off)
}
