package api

import (
	"net/http"
	"time"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// current is the snapshot to answer from, or a 503 when none is loaded yet.
func (s *server) current(w http.ResponseWriter, r *http.Request) *snapshot.Snapshot {
	snap := s.store.Current()
	if snap == nil {
		w.Header().Set("Retry-After", "1")
		detail := "the first snapshot has not been loaded yet"
		if st := s.store.LastReload(); st != nil && st.Err != nil {
			detail += ": " + st.Err.Error()
		}
		writeProblem(w, r, http.StatusServiceUnavailable, "not-ready", detail)
	}
	return snap
}

func (s *server) healthz(w http.ResponseWriter, r *http.Request) {
	write(w, http.StatusOK, jsonType, []byte(`{"status":"ok"}`))
}

func (s *server) readyz(w http.ResponseWriter, r *http.Request) {
	snap := s.current(w, r)
	if snap == nil {
		return
	}
	w.Header()[revisionHeader] = snap.RevisionValues()
	writeValue(w, struct {
		Status   string `json:"status"`
		Revision string `json:"revision"`
	}{"ready", snap.Revision})
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
func (s *server) status(w http.ResponseWriter, r *http.Request) {
	body := statusBody{Inputs: []snapshot.InputFile{}, Trees: []snapshot.Source{}}
	if src := s.store.Sources(); src != nil {
		body.Trees = src
	}
	if snap := s.store.Current(); snap != nil {
		w.Header()[revisionHeader] = snap.RevisionValues()
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
	w.Header().Set("Cache-Control", "no-store")
	writeValue(w, body)
}
