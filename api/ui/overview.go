package ui

import (
	"net/http"
	"time"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// overviewView is the overview's body.
type overviewView struct {
	Counts     snapshot.Counts
	Exposure   appCounts
	Inputs     int
	Errors     int
	Warnings   int
	Infos      int
	LastReload *reloadView // nil before the first reload
}

// reloadView is the last reload as people need it: what happened, and when
// the check refused the tree, what it found.
type reloadView struct {
	Outcome  string
	OK       bool
	At       time.Time
	Duration time.Duration
	Revision string // the revision examined
	Serving  string // the revision being served
	Error    string
	// Findings of a rejected tree: its errors first (they are why), then
	// the rest, each as the report states it.
	Findings []findingView
	Summary  *check.Summary
	// Held are the apps served at their last good version, or not at
	// all, because their files fail (serve --isolate-apps).
	Held []snapshot.HeldApp
	// Persisted is the state directory's revision served in place of the
	// tree (serve --state-dir).
	Persisted *snapshot.Persisted
}

func newReloadView(st *snapshot.ReloadStatus, snap *snapshot.Snapshot) *reloadView {
	v := &reloadView{Outcome: st.Outcome.String(), OK: st.OK(), At: st.At, Duration: st.Duration, Revision: st.Revision,
		Held: st.Held, Persisted: st.Persisted}
	if snap != nil {
		v.Serving = snap.Revision
	}
	if st.Err != nil {
		v.Error = st.Err.Error()
	}
	if st.Rejected != nil && st.Rejected.Report != nil {
		rep := st.Rejected.Report
		v.Summary = &rep.Summary
		for _, sev := range []check.Severity{check.Error, check.Warning, check.Info} {
			for _, f := range rep.Findings {
				if f.Severity == sev {
					// A rejected tree is not served: its findings link to
					// nothing of it, only name where to look.
					v.Findings = append(v.Findings, newFindingView(f, ""))
				}
			}
		}
	}
	return v
}

func (p *Pages) overview(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	if r.URL.Path == Prefix {
		// Every link on the pages is absolute; one address per page still
		// makes a shared link compare equal.
		http.Redirect(w, r, Prefix+"/", http.StatusMovedPermanently)
		return
	}
	d := p.derivedFor(snap)
	body := overviewView{Counts: snap.Counts, Exposure: d.exposure, Inputs: len(snap.Inputs),
		Errors: d.bySeverity[check.Error], Warnings: d.bySeverity[check.Warning], Infos: d.bySeverity[check.Info]}
	if st := p.store.LastReload(); st != nil {
		body.LastReload = newReloadView(st, snap)
	}
	v := p.newView(r, snap, "overview", "Overview")
	v.Body = body
	p.render(w, r, http.StatusOK, "overview", v)
}
