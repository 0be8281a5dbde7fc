package api

import (
	"bytes"
	"net/http"

	"github.com/celine-eu/governanced/api/internal/httpread"
)

func (s *server) listApps(*http.Request) (result, error) {
	snap, err := s.current()
	if err != nil {
		return result{}, err
	}
	return result{snap: snap, tree: true, body: s.answers.of(s.store, snap).appsBody()}, nil
}

func (s *server) getApp(r *http.Request) (result, error) {
	snap, err := s.current()
	if err != nil {
		return result{}, err
	}
	a := snap.App(httpread.PathParam(r, "app"))
	if a == nil {
		return result{snap: snap}, appNotFound(httpread.PathParam(r, "app"))
	}
	return treeResult(snap, func(buf *bytes.Buffer) { appendAppBody(buf, snap, a) }), nil
}

// appDatasetRule is resolution inside one app: the library's semantics, with
// the fall back to the defaults.
func (s *server) appDatasetRule(r *http.Request) (result, error) {
	return s.rule(r, httpread.PathParam(r, "app"))
}
