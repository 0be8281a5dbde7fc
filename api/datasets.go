package api

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/snapshot"
)

const (
	defaultPageSize = 1000
	maxPageSize     = 10000
)

func (s *server) listDatasets(w http.ResponseWriter, r *http.Request) {
	snap := s.current(w, r)
	if snap == nil {
		return
	}
	w.Header()[revisionHeader] = snap.RevisionValues()
	q := r.URL.Query()
	f := snapshot.Filter{App: q.Get("app"), Tags: q["tag"], Classification: q.Get("classification"), AccessLevel: q.Get("access_level")}
	var err error
	if f.Expose, err = boolParam(q, "expose"); err == nil {
		if f.DataspaceExpose, err = boolParam(q, "dataspace_expose"); err == nil {
			f.Conflict, err = boolParam(q, "conflict")
		}
	}
	if err == nil {
		err = levelParams(f)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	withRule := false
	switch inc := q.Get("include"); inc {
	case "":
	case "rule":
		withRule = true
	default:
		writeError(w, r, badRequest("include must be rule, not %q", inc))
		return
	}
	if acceptsNDJSON(r) {
		if treeHeaders(w, r, snap) {
			return
		}
		streamDatasets(w, snap, f, withRule)
		return
	}
	limit := defaultPageSize
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPageSize {
			writeError(w, r, badRequest("limit must be an integer from 1 to %d, not %q", maxPageSize, v))
			return
		}
		limit = n
	}
	page, err := snap.List(f, limit, q.Get("cursor"))
	switch {
	case errors.Is(err, snapshot.ErrStaleCursor):
		writeProblem(w, r, http.StatusConflict, "stale-cursor", "the tree was reloaded since this cursor was issued; start the listing again without a cursor")
		return
	case err != nil:
		writeProblem(w, r, http.StatusBadRequest, "invalid-cursor", "the cursor is not one this server issued; pass the next value of a previous page unchanged")
		return
	}
	if treeHeaders(w, r, snap) {
		return
	}
	buf := getBuffer()
	defer putBuffer(buf)
	snap.AppendListBody(buf, page, withRule)
	write(w, http.StatusOK, jsonType, buf.Bytes())
}

// levelParams refuses an access_level or classification filter that names
// no level: the library's normalisation raises on it, and a filter that can
// match nothing would answer an empty list for a typo.
func levelParams(f snapshot.Filter) error {
	if f.AccessLevel != "" {
		if _, err := governance.NormalizeAccessLevel(&f.AccessLevel); err != nil {
			return badRequest("access_level must be one of %s or secret (any ASCII case), not %q", strings.Join(governance.AccessLevels, ", "), f.AccessLevel)
		}
	}
	if f.Classification != "" {
		if _, err := governance.NormalizeClassification(&f.Classification); err != nil {
			return badRequest("classification must be one of %s (any ASCII case), not %q", strings.Join(governance.Classifications, ", "), f.Classification)
		}
	}
	return nil
}

// ndjsonType is newline-delimited JSON: one value a line.
const ndjsonType = "application/x-ndjson"

// acceptsNDJSON reports whether the client asked for the listing as
// newline-delimited JSON.
func acceptsNDJSON(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(mt), ndjsonType) {
				return true
			}
		}
	}
	return false
}

// streamDatasets writes every dataset the filter keeps, one item a line,
// without paging: what a consumer mirroring the whole tree reads in one
// request. The revision is in the header; the lines are the items of the
// paged listing.
func streamDatasets(w http.ResponseWriter, snap *snapshot.Snapshot, f snapshot.Filter, withRule bool) {
	w.Header().Set("Content-Type", ndjsonType)
	w.WriteHeader(http.StatusOK)
	buf := getBuffer()
	defer putBuffer(buf)
	snap.Each(f, func(d *snapshot.Dataset) bool {
		snap.AppendListItem(buf, d, withRule)
		buf.WriteByte('\n')
		if buf.Len() < 64<<10 {
			return true
		}
		_, err := w.Write(buf.Bytes())
		buf.Reset()
		return err == nil
	})
	_, _ = w.Write(buf.Bytes())
}

// lookup resolves the {id} of a /datasets route: globally, or inside one app
// when app is given (the app= query parameter, or the /apps/{app}/… route).
// It answers the problem itself and returns nil when there is nothing to serve.
func (s *server) lookup(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, app string) *snapshot.Dataset {
	id := pathParam(r, "id")
	var d *snapshot.Dataset
	var err error
	if app != "" {
		d, err = snap.ResolveIn(app, id)
	} else {
		d, err = snap.Resolve(id)
	}
	if err == nil {
		return d // the caller's treeHeaders marks the answer with the revision
	}
	// A problem about the tree says which revision it is about too.
	w.Header()[revisionHeader] = snap.RevisionValues()
	// Declared past the success path: errors.As takes its address, which
	// moves it to the heap, and the success path is the hot one.
	var amb *snapshot.AmbiguousError
	switch {
	case errors.Is(err, snapshot.ErrUnknownApp):
		writeProblem(w, r, http.StatusNotFound, "app-not-found", "no app called "+quote(app)+" is served")
	case errors.Is(err, snapshot.ErrNoMatch):
		writeProblem(w, r, http.StatusNotFound, "dataset-not-found",
			"no app declares "+quote(id)+" and no glob matches it; add app=NAME to get that app's defaults", member{"dataset", id})
	case errors.As(err, &amb):
		writeProblem(w, r, http.StatusConflict, "ambiguous-dataset",
			amb.Error()+"; add app=NAME to choose one", member{"dataset", id}, member{"apps", amb.Apps})
	default:
		writeError(w, r, err)
	}
	return nil
}

func (s *server) datasetRule(w http.ResponseWriter, r *http.Request) {
	s.rule(w, r, query(r).Get("app"))
}

// query is the request's query; most rule requests have none, and parsing an
// empty one still allocates.
func query(r *http.Request) url.Values {
	if r.URL.RawQuery == "" {
		return nil
	}
	return r.URL.Query()
}

func (s *server) rule(w http.ResponseWriter, r *http.Request, app string) {
	snap := s.current(w, r)
	if snap == nil {
		return
	}
	explain, err := flag(query(r), "explain", false)
	if err != nil {
		writeError(w, r, err)
		return
	}
	d := s.lookup(w, r, snap, app)
	if d == nil || treeHeaders(w, r, snap) {
		return
	}
	buf := getBuffer()
	defer putBuffer(buf)
	snap.AppendRuleBody(buf, pathParam(r, "id"), d, explain)
	write(w, http.StatusOK, jsonType, buf.Bytes())
}

func (s *server) datasetExposure(w http.ResponseWriter, r *http.Request) {
	snap := s.current(w, r)
	if snap == nil {
		return
	}
	d := s.lookup(w, r, snap, r.URL.Query().Get("app"))
	if d == nil || treeHeaders(w, r, snap) {
		return
	}
	buf := getBuffer()
	defer putBuffer(buf)
	snap.AppendExposureBody(buf, pathParam(r, "id"), d)
	write(w, http.StatusOK, jsonType, buf.Bytes())
}

// datasetFacet answers the bare facet object, as OpenLineage carries it; the
// revision travels in the header only, because the facet schema is closed.
func (s *server) datasetFacet(w http.ResponseWriter, r *http.Request) {
	snap := s.current(w, r)
	if snap == nil {
		return
	}
	q := r.URL.Query()
	include, err := flag(q, "include_dataspace", true)
	if err != nil {
		writeError(w, r, err)
		return
	}
	producer := governance.DefaultProducer
	if p, ok := q["producer"]; ok {
		if strings.TrimSpace(p[0]) == "" {
			writeError(w, r, badRequest("producer must not be empty"))
			return
		}
		producer = p[0]
	}
	d := s.lookup(w, r, snap, q.Get("app"))
	if d == nil || treeHeaders(w, r, snap) {
		return
	}
	write(w, http.StatusOK, jsonType, d.Facet(producer, include))
}

func quote(s string) string { return strconv.Quote(s) }
