package check

import (
	"context"
	"fmt"
	"path"
	"runtime"
	"sync"
)

// Run checks a governance tree as it will be served (check.md): it reads the
// inputs into a plan, checks every unit, and reports. The error is only ever
// a *UsageError, for options that cannot describe a check, or the context's
// error when it ends first; every problem found in the files is a finding in
// the report, and every finding is collected.
func Run(ctx context.Context, opts Options) (*Report, error) {
	p, err := NewPlan(ctx, opts)
	if err != nil {
		return nil, err
	}
	results, err := CheckUnits(ctx, p.Units)
	if err != nil {
		return nil, err
	}
	return p.Report(results), nil
}

// CheckUnits checks units in parallel, one result per unit in their order,
// and stops early with the context's error when it ends.
func CheckUnits(ctx context.Context, units []Unit) ([]UnitResult, error) {
	results := make([]UnitResult, len(units))
	err := Parallel(ctx, runtime.GOMAXPROCS(0), len(units), func(i int) {
		results[i] = CheckUnit(&units[i])
	})
	return results, err
}

// Parallel runs f(0) … f(n-1) on up to workers goroutines, taking no new
// index once ctx is done, and returns the context's error if it ended before
// every index ran.
func Parallel(ctx context.Context, workers, n int, f func(i int)) error {
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(workers, n)) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	var err error
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	return err
}

// Report puts the findings of the plan and of its units' results (one per
// unit, in order) into the report (check.md §11): sorted, identical findings
// collapsed, counted.
func (p *Plan) Report(results []UnitResult) *Report {
	r := &Report{ReportVersion: ReportVersion, Strict: p.strict, Inputs: p.inputs}
	findings := append([]Finding(nil), p.findings...)
	offers := 0
	for i := range results {
		findings = append(findings, results[i].Findings...)
		r.Summary.Datasets += results[i].Datasets
		offers += results[i].Offers
	}
	for _, o := range p.Unpaired {
		findings = append(findings, CheckOverlay(o)...)
		name := overlayName(path.Base(o.Display))
		findings = append(findings, Finding{Severity: Warning, Code: CodeOverlayUnused, File: o.Display, Subject: str(name),
			Message: fmt.Sprintf("overlay %q applies to no checked base: its app was not checked (pass the app's governance.yaml, or --overlay-name for environment-named overlays)", name)})
	}
	if p.owners == 0 && offers > 0 {
		findings = append(findings, Finding{Severity: Info, Code: CodeOwnersNotChecked,
			Message: fmt.Sprintf("%d dataspace offer(s) found but no --owners registry was given: their ownership names were not checked", offers)})
	}
	r.Summary.Bases = len(p.Units)
	r.Summary.Overlays = p.overlays
	r.Summary.OwnersFiles = p.owners
	r.finish(findings)
	return r
}
