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
)

// The one encode/decode pair: write puts bytes on the wire with the headers a
// JSON (or tree-derived) response needs, for respond (answer.go), the one
// place an answer is written; decode reads a bounded JSON request body into
// a value.

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
	setContentType(h, contentType)
	setContentLength(h, len(body))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// setContentType sets Content-Type, JSON's from a shared slice.
func setContentType(h http.Header, contentType string) {
	if contentType == jsonType {
		h["Content-Type"] = jsonTypeValue
	} else {
		h.Set("Content-Type", contentType)
	}
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

// decode reads a JSON request body into dst; the body is bounded by
// limitBody. Unknown members are refused: a misspelled "overlay" should not
// silently resolve without the overlay.
func decode(r *http.Request, dst any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return &requestError{status: http.StatusUnsupportedMediaType, kind: "unsupported-media-type",
				detail: fmt.Sprintf("the body must be application/json, not %q", ct)}
		}
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		var tooLarge *http.MaxBytesError
		var re *requestError
		switch {
		case errors.As(err, &re):
			return re // the body's working memory (chargedBody)
		case errors.As(err, &tooLarge):
			return bodyTooLarge(tooLarge)
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
