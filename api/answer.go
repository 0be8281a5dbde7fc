package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"

	"github.com/rs/zerolog"

	"github.com/celine-eu/governanced/api/internal/httpread"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// Every answer is written in one place, respond. A handler reads the
// request and returns what to answer, a result, or an error; it never
// writes to the response (Prometheus' web/api/v1 the model). respond sets
// the headers the answer's kind calls for, answers a conditional GET of
// something the client holds with 304, and writes the body, or writes the
// error as a problem detail (problem.go): a *requestError as itself,
// anything else as a logged 500.
//
// The expensive operations (POST /validate, /diff, /resolve, /merge,
// /policy/evaluate) answer under one more discipline. The handler reads the
// request (bounded by the body limit and the server's read timeout), then
// hands the work, which sees only what was read, to runBounded: the work
// runs on a goroutine of its own under the request's deadline
// (--request-timeout, from the start of the request), and its result is the
// handler's. At the deadline the client gets a 503 `timeout` problem at
// once, well before the server's write timeout would cut the connection with
// nothing said; when the client leaves, nothing is written. Either way the
// work sees its context end and stops at its next check, and it keeps its
// slot (and its working memory) until it really has: abandoned work cannot
// pile up behind new requests.

// handler is what a route does with a request: the answer, or the error
// to answer with a problem. It never writes.
type handler func(r *http.Request) (result, error)

// handle is the http.HandlerFunc of a route: h's answer, written by respond.
func handle(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		res, err := h(r)
		respond(w, r, res, err)
	}
}

// result is an answer: a status, a media type, the body, and what a client
// may keep of it.
type result struct {
	status      int    // 0 is 200
	contentType string // "" is JSON
	// The body is one of: body, written as it is (pooled, when set, is the
	// buffer body was encoded into, given back once it is written); what
	// encode writes, called only when the body is to be sent (not for a
	// 304); or what stream writes, in parts, as it goes.
	body   []byte
	pooled *bytes.Buffer
	encode func(*bytes.Buffer)
	stream func(io.Writer) error
	// snap is the revision the answer is about: its Governance-Revision
	// header, on a problem too, which names it as a member.
	snap *snapshot.Snapshot
	// tree says the answer is derived from snap's tree, a function of the
	// URL and the revision: the revision is its strong validator (ETag),
	// the client revalidates it (Cache-Control: no-cache), and a GET whose
	// If-None-Match names it is answered 304.
	tree bool
	// etag and cacheControl are the validator and the caching of an answer
	// that is not the tree's (a document that changes only with the
	// binary); a GET whose If-None-Match names etag is answered 304.
	etag, cacheControl string
}

// treeResult is a 200 JSON answer derived from snap, encoded when it is to
// be sent.
func treeResult(snap *snapshot.Snapshot, encode func(*bytes.Buffer)) result {
	return result{snap: snap, tree: true, encode: encode}
}

// okResult is a 200 result.
func okResult(contentType string, body []byte) result {
	return result{contentType: contentType, body: body}
}

// jsonResult is v encoded as JSON, 200.
func jsonResult(v any) result {
	var buf bytes.Buffer
	writeJSONValue(&buf, v)
	return okResult(jsonType, buf.Bytes())
}

// respond is the one place an answer is written: res, or err as a problem
// (a *requestError as itself, anything else as a logged 500). An error
// that is the request's context ending because its client left writes
// nothing: there is no one to read it (the log records 499).
func respond(w http.ResponseWriter, r *http.Request, res result, err error) {
	h := w.Header()
	if res.snap != nil {
		// A problem about the tree says which revision it is about too.
		h[revisionHeader] = res.snap.RevisionValues()
	}
	if err != nil {
		if clientGone(r, err) {
			return
		}
		writeError(w, r, err)
		return
	}
	etag := res.etag
	switch {
	case res.tree:
		etag = res.snap.ETag()
		h["Etag"] = res.snap.ETagValues()
		h["Cache-Control"] = noCacheValue
	case etag != "":
		h.Set("ETag", etag)
	}
	if res.cacheControl != "" {
		h.Set("Cache-Control", res.cacheControl)
	}
	if etag != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		if match := headerValue(r.Header, "If-None-Match"); match != "" && httpread.ETagMatches(match, etag) {
			w.WriteHeader(http.StatusNotModified)
			if res.pooled != nil {
				putBuffer(res.pooled)
			}
			return
		}
	}
	status, contentType := res.status, res.contentType
	if status == 0 {
		status = http.StatusOK
	}
	if contentType == "" {
		contentType = jsonType
	}
	switch {
	case res.stream != nil:
		setContentType(h, contentType)
		w.WriteHeader(status)
		if err := res.stream(w); err != nil {
			logAt(r.Context(), zerolog.DebugLevel).Err(err).Msg("the answer's stream ended early")
		}
	case res.encode != nil:
		buf := getBuffer()
		res.encode(buf)
		write(w, status, contentType, buf.Bytes())
		putBuffer(buf)
	default:
		write(w, status, contentType, res.body)
		if res.pooled != nil {
			putBuffer(res.pooled)
		}
	}
}

// refuse answers a request a middleware stops with err, as a problem.
func refuse(w http.ResponseWriter, r *http.Request, err error) { respond(w, r, result{}, err) }

// clientGone reports whether err is the request's context ending because
// its client left.
func clientGone(r *http.Request, err error) bool {
	ctx := r.Context()
	return ctx.Err() != nil && errors.Is(err, context.Canceled) && errors.Is(ctx.Err(), context.Canceled)
}

// work is an operation's work on what its handler read from the request. It
// must not touch the request: it may outlive the handler. It charges mem for
// the memory it is about to spend (a document before parsing it), and
// should return soon after ctx ends, with ctx's error.
type work func(ctx context.Context, mem *account) (result, error)

// holdWork, when set (by tests), runs before every operation's work, on its
// goroutine: a test holds work in progress with it.
var holdWork func(ctx context.Context)

// errTimedOut is the answer to work that outlived the request's deadline.
var errTimedOut = &requestError{status: http.StatusServiceUnavailable, kind: "timeout",
	detail: "the request did not finish within the request timeout (--request-timeout); it was stopped"}

// runBounded runs fn under the request's context on a goroutine of its own
// and returns what it returns, or errTimedOut when the request's deadline
// passes first, or the context's error when the client has gone (respond
// then writes nothing). Once fn has really returned, what mem holds is given
// back and release (the caller's slot), when not nil, is called: both stay
// taken until then.
func runBounded(r *http.Request, mem *account, release func(), fn work) (result, error) {
	ctx := r.Context()
	type outcome struct {
		res result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := runWork(ctx, mem, fn)
		// Given back before the answer is written: a client that has its
		// answer finds the budget as it left it.
		mem.release()
		if release != nil {
			release()
		}
		done <- outcome{res, err}
	}()
	select {
	case out := <-done:
		if out.err != nil && ctx.Err() != nil && errors.Is(out.err, ctx.Err()) {
			return result{}, ended(ctx)
		}
		return out.res, out.err
	case <-ctx.Done():
		return result{}, ended(ctx)
	}
}

// runWork runs fn, turning a panic into an error: the work runs on a
// goroutine of its own, where no recover of the request's would catch it
// and the whole process would end.
func runWork(ctx context.Context, mem *account, fn work) (res result, err error) {
	defer func() {
		if v := recover(); v != nil {
			logAt(ctx, zerolog.ErrorLevel).Str("panic", fmt.Sprint(v)).Bytes("stack", debug.Stack()).Msg("operation panicked")
			res, err = result{}, fmt.Errorf("operation panicked: %v", v)
		}
	}()
	if holdWork != nil {
		holdWork(ctx)
	}
	return fn(ctx, mem)
}

// ended is the error of a request whose context ended before its work did:
// errTimedOut at the deadline; the context's own when the client has gone.
func ended(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return errTimedOut
	}
	return ctx.Err()
}

// refused reports whether runBounded's error is the work's own refusal (the
// input could not be used), not the request's deadline or its client
// leaving.
func refused(r *http.Request, err error) bool {
	return err != nil && err != error(errTimedOut) && r.Context().Err() == nil
}
