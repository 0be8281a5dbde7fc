package check_test

import (
	"fmt"
	"os"

	"github.com/celine-eu/governanced/internal/check"
)

// A tree whose dataspace offers name an owner the registry does not know: the
// check reports it, located at the dataset, and the run fails.
func ExampleCheckGovernance() {
	rep, err := check.CheckGovernance(check.Options{
		Paths:  []string{"apps/*"},
		Owners: []string{"owners.yaml"},
		Dir:    "testdata/cases/C25/tree",
	})
	if err != nil { // only a usage error: nothing was checked
		fmt.Println(err)
		return
	}
	for _, f := range rep.Findings {
		fmt.Printf("%s:%d:%d %s %s %s %s\n", f.File, f.Line, f.Column, f.Severity, f.Code, *f.Dataset, *f.Subject)
	}
	fmt.Println("ok:", rep.OK, "exit:", rep.ExitCode, "datasets:", rep.Summary.Datasets)
	fmt.Println("served:", rep.Units[0].App, rep.Units[0].Materialized)
	rep.WriteText(os.Stdout)
	// Output:
	// apps/a/governance.yaml:8:3 error owner-unresolved datasets.gold.offer_unknown acme
	// ok: false exit: 1 datasets: 3
	// served: a true
	// apps/a/governance.yaml:8:3: error: owner-unresolved [datasets.gold.offer_unknown]: ownership name "acme" resolves to no owner of the registry (by id, placeholder or alias): a dataspace offer must name a dataspace party
	// result: fail (errors=1, warnings=0, infos=0, strict=off)
}

// A server checks the same tree again on every reload: with a Memo, units
// whose files, shared inputs and owners did not change are taken from the
// previous check, findings, configuration and all.
func ExampleMemo() {
	memo := check.NewMemo()
	opts := check.Options{
		Paths:  []string{"apps/*"},
		Owners: []string{"owners.yaml"},
		Dir:    "testdata/cases/C48/tree",
		Memo:   memo,
	}
	for range 2 {
		rep, err := check.CheckGovernance(opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		reused, checked := memo.Stats()
		fmt.Printf("findings: %d, units reused: %d, checked: %d, first reused: %v\n",
			len(rep.Findings), reused, checked, rep.Units[0].Reused)
	}
	// Output:
	// findings: 2, units reused: 0, checked: 1, first reused: false
	// findings: 2, units reused: 1, checked: 0, first reused: true
}
