package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/rs/zerolog"
)

// ProblemBase prefixes every problem type; each type has a section in the
// service documentation explaining it.
const ProblemBase = "https://github.com/celine-eu/governanced/blob/main/README.md#problem-"

// problem is an RFC 9457 problem detail. Extension members go in ext and are
// written after the standard ones.
type problem struct {
	kind   string
	title  string
	status int
	detail string
	ext    []member
}

type member struct {
	key   string
	value any
}

// The problem kinds this server produces, with their titles.
var problemTitles = map[string]string{
	"not-found":              "Not found",
	"app-not-found":          "No such app",
	"dataset-not-found":      "No app declares or matches the dataset",
	"ambiguous-dataset":      "Several apps claim the dataset",
	"owner-not-found":        "No such owner",
	"pipeline-not-found":     "No such pipeline in the dependency graph",
	"schema-not-found":       "No such schema",
	"method-not-allowed":     "Method not allowed",
	"not-ready":              "No tree loaded yet",
	"bad-request":            "Bad request",
	"invalid-upload":         "The upload is not a tree this server can read",
	"invalid-document":       "The document is not valid governance",
	"unresolved-owners":      "Ownership names resolve to no owner",
	"invalid-policy":         "The policy or changeset is invalid",
	"invalid-cursor":         "Invalid cursor",
	"stale-cursor":           "The tree changed since the cursor was issued",
	"payload-too-large":      "Payload too large",
	"answer-too-large":       "The answer would be too large; page through it",
	"unsupported-media-type": "Unsupported media type",
	"busy":                   "Too many validations in progress",
	"overloaded":             "The server's working memory is taken by other requests",
	"connections-full":       "The server holds as many connections as it may",
	"unauthorized":           "Authentication required",
	"timeout":                "The request took too long",
	"request-timeout":        "The request body did not arrive in time",
	"internal":               "Internal server error",
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

// bodyTooLarge is the answer to a body over its limit: 413.
func bodyTooLarge(err *http.MaxBytesError) *requestError {
	return &requestError{status: http.StatusRequestEntityTooLarge, kind: "payload-too-large",
		detail: fmt.Sprintf("the body is larger than %d bytes", err.Limit)}
}

// errInternal is the answer to a request that failed in a way the log says
// more of.
var errInternal = &requestError{status: http.StatusInternalServerError, kind: "internal", detail: "the server failed to answer; the log has the request id"}

// writeError answers err as a problem, for respond: a *requestError as
// itself, anything else as a 500 that does not leak internals.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	var re *requestError
	if !errors.As(err, &re) {
		logAt(r.Context(), zerolog.ErrorLevel).Err(err).Msg("request failed")
		re = errInternal
	}
	for k, v := range re.header {
		w.Header().Set(k, v)
	}
	writeProblem(w, r, re.status, re.kind, re.detail, re.ext...)
}

// writeProblem writes a problem detail. The request id and, for tree-derived
// requests, the revision are added as extension members so a report can be
// matched with the log line and the tree it was answered from.
func writeProblem(w http.ResponseWriter, r *http.Request, status int, kind, detail string, ext ...member) {
	p := problem{kind: kind, title: problemTitles[kind], status: status, detail: detail, ext: ext}
	if p.title == "" {
		p.title = http.StatusText(status)
	}
	if id := requestID(r.Context()); id != "" {
		p.ext = append(p.ext, member{"request_id", id})
	}
	if rev := w.Header().Get(revisionHeader); rev != "" {
		p.ext = append(p.ext, member{"revision", rev})
	}
	h := w.Header()
	h.Del("ETag")
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	buf := getBuffer()
	defer putBuffer(buf)
	buf.WriteString(`{"type":`)
	writeJSONValue(buf, ProblemBase+kind)
	buf.WriteString(`,"title":`)
	writeJSONValue(buf, p.title)
	buf.WriteString(`,"status":`)
	buf.WriteString(strconv.Itoa(status))
	if detail != "" {
		buf.WriteString(`,"detail":`)
		writeJSONValue(buf, detail)
	}
	for _, m := range p.ext {
		buf.WriteByte(',')
		writeJSONValue(buf, m.key)
		buf.WriteByte(':')
		writeJSONValue(buf, m.value)
	}
	buf.WriteString("}\n")
	setContentLength(h, buf.Len())
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
