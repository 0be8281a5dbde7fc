package api

import (
	"net/http"
)

func (s *server) listApps(w http.ResponseWriter, r *http.Request) {
	snap := s.current(w, r)
	if snap == nil || treeHeaders(w, r, snap) {
		return
	}
	write(w, http.StatusOK, jsonType, snap.AppsBody())
}

func (s *server) getApp(w http.ResponseWriter, r *http.Request) {
	snap := s.current(w, r)
	if snap == nil {
		return
	}
	a := snap.App(pathParam(r, "app"))
	if a == nil {
		w.Header()[revisionHeader] = snap.RevisionValues()
		writeProblem(w, r, http.StatusNotFound, "app-not-found", "no app called "+quote(pathParam(r, "app"))+" is served")
		return
	}
	if treeHeaders(w, r, snap) {
		return
	}
	write(w, http.StatusOK, jsonType, snap.AppBody(a))
}

// appDatasetRule is resolution inside one app: the library's semantics, with
// the fall back to the defaults.
func (s *server) appDatasetRule(w http.ResponseWriter, r *http.Request) {
	s.rule(w, r, pathParam(r, "app"))
}
