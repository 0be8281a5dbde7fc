package api

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/celine-eu/governanced/api/internal/httpread"
	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/snapshot"
)

const (
	defaultPageSize = 1000
	maxPageSize     = 10000
)

func (s *server) listDatasets(r *http.Request) (result, error) {
	snap, err := s.current()
	if err != nil {
		return result{}, err
	}
	q := r.URL.Query()
	f := snapshot.Filter{App: q.Get("app"), Tags: q["tag"], Classification: q.Get("classification"), AccessLevel: q.Get("access_level")}
	if f.Expose, err = boolParam(q, "expose"); err == nil {
		if f.DataspaceExpose, err = boolParam(q, "dataspace_expose"); err == nil {
			f.Conflict, err = boolParam(q, "conflict")
		}
	}
	if err == nil {
		err = levelParams(f)
	}
	if v := q.Get("q"); err == nil && v != "" {
		f.Query, err = searchParam(v)
	}
	if err != nil {
		return result{snap: snap}, err
	}
	withRule := false
	switch inc := q.Get("include"); inc {
	case "":
	case "rule":
		withRule = true
	default:
		return result{snap: snap}, badRequest("include must be rule, not %q", inc)
	}
	if acceptsNDJSON(r) {
		return result{snap: snap, tree: true, contentType: ndjsonType, stream: func(w io.Writer) error {
			return streamDatasets(w, snap, f, withRule)
		}}, nil
	}
	limit := defaultPageSize
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPageSize {
			return result{snap: snap}, badRequest("limit must be an integer from 1 to %d, not %q", maxPageSize, v)
		}
		limit = n
	}
	page, err := snap.List(f, limit, q.Get("cursor"))
	switch {
	case errors.Is(err, snapshot.ErrStaleCursor):
		return result{snap: snap}, &requestError{status: http.StatusConflict, kind: "stale-cursor",
			detail: "the tree was reloaded since this cursor was issued; start the listing again without a cursor"}
	case err != nil:
		return result{snap: snap}, &requestError{status: http.StatusBadRequest, kind: "invalid-cursor",
			detail: "the cursor is not one this server issued; pass the next value of a previous page unchanged"}
	}
	return treeResult(snap, func(buf *bytes.Buffer) { appendListBody(buf, snap, page, withRule) }), nil
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

// searchParam reads q, the search box's text: a glob over keys, or words
// (snapshot.NewQuery).
func searchParam(text string) (*snapshot.Query, error) {
	query, err := snapshot.NewQuery(text)
	if err != nil {
		return nil, badRequest("q: %v", err)
	}
	return query, nil
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
func streamDatasets(w io.Writer, snap *snapshot.Snapshot, f snapshot.Filter, withRule bool) error {
	buf := getBuffer()
	defer putBuffer(buf)
	var err error
	snap.Each(f, func(h snapshot.Hit) bool {
		appendListItem(buf, snap, h, withRule)
		buf.WriteByte('\n')
		if buf.Len() < 64<<10 {
			return true
		}
		_, err = w.Write(buf.Bytes())
		buf.Reset()
		return err == nil
	})
	if err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// lookup resolves id, the {id} of a /datasets route: globally, or inside
// one app when app is given (the app= query parameter, or the
// /apps/{app}/… route).
func lookup(snap *snapshot.Snapshot, id, app string) (*snapshot.Dataset, error) {
	d, err := snap.ResolveScoped(app, id)
	if err == nil {
		return d, nil
	}
	// Declared past the success path: errors.As takes its address, which
	// moves it to the heap, and the success path is the hot one.
	var amb *snapshot.AmbiguousError
	switch {
	case errors.Is(err, snapshot.ErrUnknownApp):
		return nil, appNotFound(app)
	case errors.Is(err, snapshot.ErrNoMatch):
		return nil, &requestError{status: http.StatusNotFound, kind: "dataset-not-found",
			detail: "no app declares " + quote(id) + " and no glob matches it; add app=NAME to get that app's defaults", ext: []member{{"dataset", id}}}
	case errors.As(err, &amb):
		return nil, &requestError{status: http.StatusConflict, kind: "ambiguous-dataset",
			detail: amb.Error() + "; add app=NAME to choose one", ext: []member{{"dataset", id}, {"apps", amb.Apps}}}
	}
	return nil, err
}

// appNotFound is the answer to an app the tree does not serve.
func appNotFound(app string) error {
	return &requestError{status: http.StatusNotFound, kind: "app-not-found", detail: "no app called " + quote(app) + " is served"}
}

func (s *server) datasetRule(r *http.Request) (result, error) {
	return s.rule(r, query(r).Get("app"))
}

// query is the request's query; most rule requests have none, and parsing an
// empty one still allocates.
func query(r *http.Request) url.Values {
	if r.URL.RawQuery == "" {
		return nil
	}
	return r.URL.Query()
}

// rule answers a rule read. Its body is encoded at once into a pooled
// buffer, not when respond sends it: the read is the service's most
// frequent, and a deferred encoding would cost it an allocation, more than
// encoding a body a conditional GET then drops (its rule part is kept with
// the dataset).
func (s *server) rule(r *http.Request, app string) (result, error) {
	snap, err := s.current()
	if err != nil {
		return result{}, err
	}
	explain, err := flag(query(r), "explain", false)
	if err != nil {
		return result{}, err
	}
	id := httpread.PathParam(r, "id")
	d, err := lookup(snap, id, app)
	if err != nil {
		return result{snap: snap}, err
	}
	buf := getBuffer()
	appendRuleBody(buf, snap, id, d, explain, s.ruleParts)
	return result{snap: snap, tree: true, body: buf.Bytes(), pooled: buf}, nil
}

func (s *server) datasetExposure(r *http.Request) (result, error) {
	snap, err := s.current()
	if err != nil {
		return result{}, err
	}
	id := httpread.PathParam(r, "id")
	d, err := lookup(snap, id, query(r).Get("app"))
	if err != nil {
		return result{snap: snap}, err
	}
	buf := getBuffer()
	appendExposureBody(buf, snap, id, d)
	return result{snap: snap, tree: true, body: buf.Bytes(), pooled: buf}, nil
}

// datasetFacet answers the bare facet object, as OpenLineage carries it; the
// revision travels in the header only, because the facet schema is closed.
func (s *server) datasetFacet(r *http.Request) (result, error) {
	snap, err := s.current()
	if err != nil {
		return result{}, err
	}
	q := query(r)
	include, err := flag(q, "include_dataspace", true)
	if err != nil {
		return result{}, err
	}
	producer := governance.DefaultProducer
	if p, ok := q["producer"]; ok {
		if strings.TrimSpace(p[0]) == "" {
			return result{}, badRequest("producer must not be empty")
		}
		producer = p[0]
	}
	d, err := lookup(snap, httpread.PathParam(r, "id"), q.Get("app"))
	if err != nil {
		return result{snap: snap}, err
	}
	return result{snap: snap, tree: true, body: d.Facet(producer, include)}, nil
}

func quote(s string) string { return strconv.Quote(s) }
