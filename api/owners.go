package api

import (
	"net/http"

	"github.com/celine-eu/governanced/internal/owners"
)

// listOwners is the merged registry; with uri= it finds the owner registered
// under a DID or URL (an empty list when none is).
func (s *server) listOwners(w http.ResponseWriter, r *http.Request) {
	snap := s.current(w, r)
	if snap == nil || treeHeaders(w, r, snap) {
		return
	}
	var entries []*owners.Entry
	if uri, ok := r.URL.Query()["uri"]; ok {
		if e := snap.Owners.ByURI(uri[0]); e != nil {
			entries = append(entries, e)
		}
	} else {
		entries = snap.Owners.All()
	}
	buf := getBuffer()
	defer putBuffer(buf)
	buf.WriteString(`{"revision":`)
	buf.Write(snap.RevisionJSON())
	buf.WriteString(`,"items":[`)
	for i, e := range entries {
		if i > 0 {
			buf.WriteByte(',')
		}
		b, err := e.MarshalJSON()
		if err != nil {
			writeError(w, r, err)
			return
		}
		buf.Write(b)
	}
	buf.WriteString(`]}`)
	write(w, http.StatusOK, jsonType, buf.Bytes())
}

// getOwner finds one owner by id, then alias, and adds its canonical URI.
func (s *server) getOwner(w http.ResponseWriter, r *http.Request) {
	snap := s.current(w, r)
	if snap == nil {
		return
	}
	key := pathParam(r, "key")
	e := snap.Owners.ByID(key)
	if e == nil {
		w.Header()[revisionHeader] = snap.RevisionValues()
		writeProblem(w, r, http.StatusNotFound, "owner-not-found", "no owner has the id or alias "+quote(key), member{"key", key})
		return
	}
	if treeHeaders(w, r, snap) {
		return
	}
	entry, err := e.MarshalJSON()
	if err != nil || len(entry) < 2 {
		writeError(w, r, err)
		return
	}
	buf := getBuffer()
	defer putBuffer(buf)
	buf.WriteString(`{"revision":`)
	buf.Write(snap.RevisionJSON())
	buf.WriteByte(',')
	buf.Write(entry[1 : len(entry)-1])
	buf.WriteString(`,"canonical_uri":`)
	if uri, ok := e.CanonicalURI(); ok {
		writeJSONValue(buf, uri)
	} else {
		buf.WriteString("null")
	}
	buf.WriteByte('}')
	write(w, http.StatusOK, jsonType, buf.Bytes())
}

// unresolvedOwners lists the ownership names of the served tree that
// resolve to no owner, with where each is written.
func (s *server) unresolvedOwners(w http.ResponseWriter, r *http.Request) {
	snap := s.current(w, r)
	if snap == nil || treeHeaders(w, r, snap) {
		return
	}
	buf := getBuffer()
	defer putBuffer(buf)
	buf.WriteString(`{"revision":`)
	buf.Write(snap.RevisionJSON())
	buf.WriteString(`,"items":`)
	writeJSONValue(buf, snap.UnresolvedOwners())
	buf.WriteByte('}')
	write(w, http.StatusOK, jsonType, buf.Bytes())
}
