package api

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/celine-eu/governanced/api/internal/httpread"
	"github.com/celine-eu/governanced/internal/owners"
)

// listOwners is the merged registry; with uri= it finds the owner registered
// under a DID or URL (an empty list when none is).
func (s *server) listOwners(r *http.Request) (result, error) {
	snap, err := s.current()
	if err != nil {
		return result{}, err
	}
	var entries []*owners.Entry
	if uri, ok := r.URL.Query()["uri"]; ok {
		if e := snap.Owners.ByURI(uri[0]); e != nil {
			entries = append(entries, e)
		}
	} else {
		entries = snap.Owners.All()
	}
	// Encoded here, not when sent: an entry that fails to encode is a 500,
	// never half a body.
	var buf bytes.Buffer
	openEnvelope(&buf, snap)
	buf.WriteString(`,"items":[`)
	for i, e := range entries {
		if i > 0 {
			buf.WriteByte(',')
		}
		b, err := e.MarshalJSON()
		if err != nil {
			return result{snap: snap}, err
		}
		buf.Write(b)
	}
	buf.WriteString(`]}`)
	return result{snap: snap, tree: true, body: buf.Bytes()}, nil
}

// getOwner finds one owner by id, then alias, and adds its canonical URI.
func (s *server) getOwner(r *http.Request) (result, error) {
	snap, err := s.current()
	if err != nil {
		return result{}, err
	}
	key := httpread.PathParam(r, "key")
	e := snap.Owners.ByID(key)
	if e == nil {
		return result{snap: snap}, &requestError{status: http.StatusNotFound, kind: "owner-not-found",
			detail: "no owner has the id or alias " + quote(key), ext: []member{{"key", key}}}
	}
	entry, err := e.MarshalJSON()
	if err == nil && len(entry) < 2 {
		err = fmt.Errorf("owner %q encodes to %q", key, entry)
	}
	if err != nil {
		return result{snap: snap}, err
	}
	var buf bytes.Buffer
	openEnvelope(&buf, snap)
	buf.WriteByte(',')
	buf.Write(entry[1 : len(entry)-1])
	buf.WriteString(`,"canonical_uri":`)
	if uri, ok := e.CanonicalURI(); ok {
		appendString(&buf, uri)
	} else {
		buf.WriteString("null")
	}
	buf.WriteByte('}')
	return result{snap: snap, tree: true, body: buf.Bytes()}, nil
}

// unresolvedOwners lists the ownership names of the served tree that
// resolve to no owner, with where each is written.
func (s *server) unresolvedOwners(*http.Request) (result, error) {
	snap, err := s.current()
	if err != nil {
		return result{}, err
	}
	return treeResult(snap, func(buf *bytes.Buffer) {
		openEnvelope(buf, snap)
		buf.WriteString(`,"items":`)
		writeJSONValue(buf, snap.UnresolvedOwners())
		buf.WriteByte('}')
	}), nil
}
