package ui

import (
	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// derived is what the pages count over the whole tree: worked out once per
// revision, when a page first needs it, so that no request walks 100 000
// datasets to draw a summary.
type derived struct {
	snap *snapshot.Snapshot
	// Listed, offered and conflicting datasets over the tree, and per app.
	exposure appCounts
	apps     map[string]*appCounts
	// fileApp maps a display path to the app it belongs to (base or
	// overlay), so that a finding links to its dataset in that app.
	fileApp map[string]string
	// findings holds, per app and source key, the indexes of the report's
	// findings about it.
	findings map[datasetKey][]int
	// bySeverity counts the report's findings.
	bySeverity map[check.Severity]int
}

type appCounts struct {
	Sources, Listed, Offered, Conflicts int
	Errors, Warnings, Infos             int // findings in the app's files
}

type datasetKey struct{ app, id string }

// derivedFor returns the counts of snap, working them out when snap is a
// new revision.
func (p *Pages) derivedFor(snap *snapshot.Snapshot) *derived {
	if d := p.derived.Load(); d != nil && d.snap == snap {
		return d
	}
	p.derivedMu.Lock()
	defer p.derivedMu.Unlock()
	if d := p.derived.Load(); d != nil && d.snap == snap {
		return d
	}
	d := deriveFrom(snap)
	p.derived.Store(d)
	return d
}

func deriveFrom(snap *snapshot.Snapshot) *derived {
	d := &derived{snap: snap, apps: map[string]*appCounts{}, fileApp: map[string]string{},
		findings: map[datasetKey][]int{}, bySeverity: map[check.Severity]int{}}
	for _, a := range snap.Apps() {
		c := &appCounts{Sources: a.DatasetCount()}
		d.apps[a.Name] = c
		d.fileApp[a.File] = a.Name
		if a.OverlayFile != "" {
			d.fileApp[a.OverlayFile] = a.Name
		}
		for i := range a.DatasetCount() {
			ds := a.Dataset(i)
			if ds.Expose {
				c.Listed++
			}
			if ds.DataspaceExpose {
				c.Offered++
			}
			if ds.Conflict() != "" {
				c.Conflicts++
			}
		}
		d.exposure.Sources += c.Sources
		d.exposure.Listed += c.Listed
		d.exposure.Offered += c.Offered
		d.exposure.Conflicts += c.Conflicts
	}
	rep := snap.Report()
	if rep == nil {
		return d
	}
	for i, f := range rep.Findings {
		d.bySeverity[f.Severity]++
		app, ok := d.fileApp[f.File]
		if !ok {
			continue
		}
		c := d.apps[app]
		switch f.Severity {
		case check.Error:
			c.Errors++
		case check.Warning:
			c.Warnings++
		default:
			c.Infos++
		}
		if f.Dataset != nil {
			k := datasetKey{app, *f.Dataset}
			d.findings[k] = append(d.findings[k], i)
		}
	}
	return d
}
