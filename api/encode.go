package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/celine-eu/governanced/internal/snapshot"
)

// The one encode/decode pair: write puts bytes on the wire with the headers a
// JSON (or tree-derived) response needs; decode reads a bounded JSON request
// body into a value. Handlers use nothing else.

const (
	jsonType = "application/json; charset=utf-8"
	// revisionHeader carries the revision on every tree-derived response, also
	// where the body is not governanced's own envelope (a facet, a report).
	revisionHeader = "Governance-Revision"
)

var bufferPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Header values set on every response are shared one-element slices rather
// than fresh ones per request (http.Header.Set allocates one each time): at
// tens of thousands of requests a second on a large heap, every allocation
// is GC work. net/http only reads them, and an Add to the same key appends
// into a new array because the shared slices are full.
var (
	jsonTypeValue = []string{jsonType}
	noCacheValue  = []string{"no-cache"}
)

func getBuffer() *bytes.Buffer { return bufferPool.Get().(*bytes.Buffer) }

func putBuffer(b *bytes.Buffer) {
	if b.Cap() > 1<<20 {
		return // let an unusually large body go rather than pin it
	}
	b.Reset()
	bufferPool.Put(b)
}

// write sends body with a status and content type.
func write(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	if contentType == jsonType {
		h["Content-Type"] = jsonTypeValue
	} else {
		h.Set("Content-Type", contentType)
	}
	setContentLength(h, len(body))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// netHTTPChunkingBuffer is the size of the buffer net/http fills before it
// decides how to frame a response (bufferBeforeChunkingSize in net/http).
const netHTTPChunkingBuffer = 2048

// setContentLength sets Content-Length for a body of n bytes written whole
// in one Write, where net/http would not. net/http sets it itself, without
// allocating, for a body that fits its chunking buffer when the handler
// returns; a larger one would go out chunked. Setting it here for every
// response would cost two allocations and a header entry on every rule answer.
func setContentLength(h http.Header, n int) {
	if n > netHTTPChunkingBuffer {
		h.Set("Content-Length", strconv.Itoa(n))
	}
}

// writeValue encodes v as JSON and sends it with 200.
func writeValue(w http.ResponseWriter, v any) {
	buf := getBuffer()
	defer putBuffer(buf)
	writeJSONValue(buf, v)
	write(w, http.StatusOK, jsonType, buf.Bytes())
}

// treeHeaders marks a response as derived from snap: the revision header and
// the ETag. It reports whether the client's copy is current (If-None-Match),
// in which case it has already answered 304 and the handler must stop.
func treeHeaders(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) (done bool) {
	h := w.Header()
	h[revisionHeader] = snap.RevisionValues()
	// The body of a GET is a function of the URL and the revision, so the
	// revision is a strong validator for every tree-derived representation.
	etag := snap.ETag()
	h["Etag"] = snap.ETagValues()
	h["Cache-Control"] = noCacheValue
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		if match := r.Header.Get("If-None-Match"); match != "" && etagMatches(match, etag) {
			w.WriteHeader(http.StatusNotModified)
			return true
		}
	}
	return false
}

// etagMatches is If-None-Match's weak comparison (RFC 9110 §13.1.2).
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// writeJSONValue appends v as JSON without HTML escaping and without the
// encoder's trailing newline.
func writeJSONValue(buf *bytes.Buffer, v any) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only this package's own types reach here; failing to encode one is a
		// programming error, and a half-written body must not look valid.
		panic(fmt.Sprintf("api: encoding %T: %v", v, err))
	}
	buf.Truncate(buf.Len() - 1)
}

// decode reads a JSON request body of at most limit bytes into dst. Unknown
// members are refused: a misspelled "overlay" should not silently resolve
// without the overlay.
func decode(w http.ResponseWriter, r *http.Request, limit int64, dst any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return &requestError{status: http.StatusUnsupportedMediaType, kind: "unsupported-media-type",
				detail: fmt.Sprintf("the body must be application/json, not %q", ct)}
		}
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		var tooLarge *http.MaxBytesError
		var re *requestError
		switch {
		case errors.As(err, &re):
			return re // the body's working memory (chargedBody)
		case errors.As(err, &tooLarge):
			return &requestError{status: http.StatusRequestEntityTooLarge, kind: "payload-too-large",
				detail: fmt.Sprintf("the body is larger than %d bytes", limit)}
		}
		if re := slowBody(err); re != nil {
			return re
		}
		return &requestError{status: http.StatusBadRequest, kind: "bad-request", detail: "the body is not valid JSON for this operation: " + err.Error()}
	}
	if dec.More() {
		return &requestError{status: http.StatusBadRequest, kind: "bad-request", detail: "the body holds more than one JSON value"}
	}
	return nil
}

// requestError is a client mistake found while reading a request, or a
// request the server cannot take on now.
type requestError struct {
	status int
	kind   string
	detail string
	ext    []member
	header map[string]string // set on the answer (Retry-After)
}

func (e *requestError) Error() string { return e.detail }

// writeError answers err as a problem: a *requestError as itself, anything
// else as a 500 that does not leak internals.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	var re *requestError
	if errors.As(err, &re) {
		for k, v := range re.header {
			w.Header().Set(k, v)
		}
		writeProblem(w, r, re.status, re.kind, re.detail, re.ext...)
		return
	}
	logAt(r.Context(), zerolog.ErrorLevel).Err(err).Msg("request failed")
	writeProblem(w, r, http.StatusInternalServerError, "internal", "the server failed to answer; the log has the request id")
}
