package check

import (
	"context"
	"fmt"
	"path"
	"runtime"
	"sync"
	"sync/atomic"
)

// Run checks a governance tree as it will be served (check.md): it reads the
// inputs into a plan, checks every unit, and reports. The error is only ever
// a *UsageError, for options that cannot describe a check, a *BudgetError
// when the check would cost more than opts.Budget (or Budget.Memory's
// error when it refuses a unit), or the context's error
// when it ends first; every problem found in the files is a finding in the
// report, and every finding is collected. A check stops between units once
// the context ends or the budget is spent.
func Run(ctx context.Context, opts Options) (*Report, error) {
	p, err := NewPlan(ctx, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	spent := NewMeter(opts.Budget, cancel)
	// A report needs each unit's findings and counts, not what it would
	// serve: dropping the materialised configuration as each unit is done
	// keeps a check's memory to its inputs and findings (a 9,000-app upload
	// held every app's rules at once).
	n := len(p.Units)
	results := make([]UnitResult, n)
	unpaired := make([][]Finding, len(p.Unpaired))
	workers := runtime.GOMAXPROCS(0)
	if w := opts.Budget.Workers; w > 0 && w < workers {
		workers = w
	}
	err = Parallel(ctx, workers, n+len(p.Unpaired), func(i int) {
		if i < n {
			r := CheckUnit(&p.Units[i])
			results[i] = UnitResult{Findings: r.Findings, Datasets: r.Datasets, Offers: r.Offers}
			spent.Add(r.Sources, r.Values)
			return
		}
		var sources, values int
		unpaired[i-n], sources, values = checkOverlay(p.Unpaired[i-n])
		spent.Add(sources, values)
	})
	if err := spent.Err(); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	return p.report(results, unpaired), nil
}

// Meter counts what a check's units cost against its budget's Sources and
// Values, and calls stop once either is spent: a caller checking units
// itself (internal/snapshot) bounds them as Run does. Safe for concurrent
// use.
type Meter struct {
	budget          Budget
	stop            func()
	sources, values atomic.Int64
	over            atomic.Pointer[BudgetError]
	refused         atomic.Pointer[error] // Budget.Memory's error
}

// NewMeter is a meter of budget; stop (nil for none) is called when it is
// spent, typically a context's cancel.
func NewMeter(budget Budget, stop func()) *Meter {
	if stop == nil {
		stop = func() {}
	}
	return &Meter{budget: budget, stop: stop}
}

// Add counts one unit's cost (UnitResult.Sources and Values).
func (m *Meter) Add(sources, values int) {
	for _, c := range []struct {
		what  string
		limit int
		n     *atomic.Int64
		add   int
	}{{"sources", m.budget.Sources, &m.sources, sources}, {"YAML values", m.budget.Values, &m.values, values}} {
		if got := c.n.Add(int64(c.add)); c.limit > 0 && got > int64(c.limit) {
			m.over.CompareAndSwap(nil, &BudgetError{What: c.what, Limit: c.limit, Found: int(got)})
			m.stop()
		}
	}
	if m.budget.Memory != nil {
		if err := m.budget.Memory.Charge(sources, values); err != nil {
			m.refused.CompareAndSwap(nil, &err)
			m.stop()
		}
	}
}

// Err is the *BudgetError of the budget first spent, else Budget.Memory's
// first error, or nil.
func (m *Meter) Err() error {
	if e := m.over.Load(); e != nil {
		return e
	}
	if e := m.refused.Load(); e != nil {
		return *e
	}
	return nil
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
func (p *Plan) Report(results []UnitResult) *Report { return p.report(results, nil) }

// ReportOf is Report for a tree made from the plan's by a caller that
// serves some units from other files (internal/snapshot holds an app whose
// files fail the check at its last good ones, or leaves it out): results
// are that tree's units' results, one per unit; unpaired the overlays no
// unit of it takes, each of the plan's Unpaired; overlays how many overlay
// files it holds, paired or not. The plan's own findings (about the paths,
// the overlay directory, the owners and the placeholder map) are reported
// as Report reports them.
func (p *Plan) ReportOf(results []UnitResult, unpaired []File, overlays int) *Report {
	q := *p
	q.Unpaired, q.overlays = unpaired, overlays
	return q.report(results, nil)
}

// report is Report with the findings of the unpaired overlays already
// checked, one list per overlay in order; nil checks them here.
func (p *Plan) report(results []UnitResult, unpaired [][]Finding) *Report {
	r := &Report{ReportVersion: ReportVersion, Strict: p.strict, Inputs: p.inputs}
	// One list of the size every unit's findings make: a server builds the
	// report again on every reload, and a list grown by appending made
	// about twice the tree's findings in garbage each time.
	n := len(p.findings) + len(p.Unpaired) + 1
	for i := range results {
		n += len(results[i].Findings)
	}
	for _, u := range unpaired {
		n += len(u)
	}
	findings := append(make([]Finding, 0, n), p.findings...)
	offers := 0
	for i := range results {
		findings = append(findings, results[i].Findings...)
		r.Summary.Datasets += results[i].Datasets
		offers += results[i].Offers
	}
	for i, o := range p.Unpaired {
		if unpaired != nil {
			findings = append(findings, unpaired[i]...)
		} else {
			findings = append(findings, CheckOverlay(o)...)
		}
		name := overlayName(path.Base(o.Display))
		msg := fmt.Sprintf("overlay %q applies to no checked base: its app was not checked (pass the app's governance.yaml, or --overlay-name for environment-named overlays)", name)
		if p.noInfer {
			msg = fmt.Sprintf("overlay %q applies to no checked base: without an overlay name every base is left unchanged (--infer-from-dir=false), so an overlay beside it pairs only by --overlay-name", name)
		}
		findings = append(findings, Finding{Severity: Warning, Code: CodeOverlayUnused, File: o.Display, Subject: str(name), Message: msg})
	}
	if p.owners == 0 && offers > 0 {
		findings = append(findings, Finding{Severity: Info, Code: CodeOwnersNotChecked,
			Message: fmt.Sprintf("%d dataspace offer(s) found but no --owners registry was given: their ownership names were not checked", offers)})
	}
	r.Summary.Bases = len(results) // one per unit
	r.Summary.Overlays = p.overlays
	r.Summary.OwnersFiles = p.owners
	r.finish(findings)
	return r
}
