package api

import (
	"net/http"
	"time"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// current is the snapshot to answer from, or a 503 not-ready when none is
// loaded yet.
func (s *server) current() (*snapshot.Snapshot, error) {
	if snap := s.store.Current(); snap != nil {
		return snap, nil
	}
	detail := "the first snapshot has not been loaded yet"
	if st := s.store.LastReload(); st != nil && st.Err != nil {
		detail += ": " + st.Err.Error()
	}
	return nil, &requestError{status: http.StatusServiceUnavailable, kind: "not-ready", detail: detail,
		header: map[string]string{"Retry-After": "1"}}
}

var healthzBody = []byte(`{"status":"ok"}`)

func (s *server) healthz(*http.Request) (result, error) {
	return okResult(jsonType, healthzBody), nil
}

func (s *server) readyz(*http.Request) (result, error) {
	snap, err := s.current()
	if err != nil {
		return result{}, err
	}
	res := jsonResult(struct {
		Status   string `json:"status"`
		Revision string `json:"revision"`
	}{"ready", snap.Revision})
	res.snap = snap
	return res, nil
}

type statusBody struct {
	Revision *string         `json:"revision"`
	LoadedAt *time.Time      `json:"loaded_at"`
	Counts   snapshot.Counts `json:"counts"`
	// Graph are the dependency graph's sizes and findings (the base files'
	// reading, GET /graph's default): a reload that brings a cycle or an
	// input nobody produces shows here in the revision that brings it.
	Graph      *snapshot.GraphCounts `json:"graph"`
	LastReload *lastReload           `json:"last_reload"`
	Reloading  *reloadRunning        `json:"reloading,omitempty"`
	Inputs     []snapshot.InputFile  `json:"inputs"`
	// Trees are where the served content was read from: each tree's
	// commit when it is a git checkout.
	Trees []snapshot.Source `json:"trees"`
	// Held are the apps served at their last good version (or not at
	// all) because their files fail the check (serve --isolate-apps).
	Held []heldApp `json:"held"`
	// Persisted is the state directory's revision served in place of a
	// tree that cannot be (serve --state-dir); null otherwise.
	Persisted *persisted `json:"persisted"`
}

// heldApp is an app whose files fail the check while the rest is served.
type heldApp struct {
	App   string    `json:"app"`
	File  string    `json:"file"`
	Since time.Time `json:"since"`
	// Problems are its failing findings: file:line:col: severity: code: message.
	Problems []string `json:"problems"`
	// Served are the files of the version served, by path and hash: its
	// last good ones; null when it is not served at all.
	Served []snapshot.InputFile `json:"served"`
}

// persisted is a revision a state directory kept, served in place of the
// tree; last_reload says why the tree is not served.
type persisted struct {
	Revision string    `json:"revision"`
	SavedAt  time.Time `json:"saved_at"`
}

func newHeld(held []snapshot.HeldApp) []heldApp {
	out := make([]heldApp, len(held))
	for i, h := range held {
		out[i] = heldApp{App: h.App, File: h.File, Since: h.Since, Problems: h.Problems, Served: h.Served}
	}
	return out
}

func newPersisted(p *snapshot.Persisted) *persisted {
	if p == nil {
		return nil
	}
	return &persisted{Revision: p.Revision, SavedAt: p.SavedAt}
}

type lastReload struct {
	OK         bool      `json:"ok"`
	At         time.Time `json:"at"`
	Error      *string   `json:"error"`
	Outcome    string    `json:"outcome"`
	Revision   *string   `json:"revision"`
	DurationMS float64   `json:"duration_ms"`
	// The apps the reload took unchanged from the last activated one, and
	// the apps it checked and built; both 0 when nothing was built.
	UnitsReused int           `json:"units_reused"`
	UnitsBuilt  int           `json:"units_built"`
	Problems    []string      `json:"problems,omitempty"`
	Report      *check.Report `json:"report,omitempty"`
}

// reloadRunning is a reload under way: /status says since when, so that an
// operator sees one that takes long (it is abandoned at --reload-timeout).
type reloadRunning struct {
	Since time.Time `json:"since"`
}

// status is operational state, not tree content: it changes when a reload is
// rejected although the revision does not, so it carries no ETag.
func (s *server) status(*http.Request) (result, error) {
	body := statusBody{Inputs: []snapshot.InputFile{}, Trees: []snapshot.Source{}}
	if src := s.store.Sources(); src != nil {
		body.Trees = src
	}
	snap, held, kept := s.store.Serving()
	body.Held, body.Persisted = newHeld(held), newPersisted(kept)
	if snap != nil {
		body.Revision, body.LoadedAt = &snap.Revision, &snap.LoadedAt
		body.Counts, body.Inputs = snap.Counts, snap.Inputs
		gc := snap.GraphCounts()
		body.Graph = &gc
	}
	if st := s.store.LastReload(); st != nil {
		lr := &lastReload{OK: st.OK(), At: st.At, Outcome: st.Outcome.String(), DurationMS: float64(st.Duration.Microseconds()) / 1000,
			UnitsReused: st.UnitsReused, UnitsBuilt: st.UnitsBuilt}
		if st.Revision != "" {
			lr.Revision = &st.Revision
		}
		if st.Err != nil {
			msg := st.Err.Error()
			lr.Error = &msg
		}
		if st.Rejected != nil {
			lr.Problems = st.Rejected.Problems
			lr.Report = st.Rejected.Report
		}
		body.LastReload = lr
	}
	if since, ok := s.store.Reloading(); ok {
		body.Reloading = &reloadRunning{Since: since}
	}
	res := jsonResult(body)
	res.snap, res.cacheControl = snap, "no-store"
	return res, nil
}
