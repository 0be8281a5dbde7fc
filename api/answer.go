package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"

	"github.com/rs/zerolog"
)

// The expensive operations (POST /validate, /diff, /resolve, /merge,
// /policy/evaluate) answer under one discipline. The handler reads the
// request (bounded by the body limit and the server's read timeout), then
// hands the work, which sees only what was read, to runBounded: the work
// runs on a goroutine of its own under the request's deadline
// (--request-timeout, from the start of the request), and one place writes
// its answer. At the deadline the client gets a 503 `timeout` problem at once,
// well before the server's write timeout would cut the connection with
// nothing said; when the client leaves, nothing is written. Either way the
// work sees its context end and stops at its next check, and it keeps its
// slot (and its working memory) until it really has: abandoned work cannot
// pile up behind new requests.

// result is an operation's answer: a status, a media type and a body
// written whole. An operation that fails returns an error instead, which
// respond writes as a problem.
type result struct {
	status      int
	contentType string
	body        []byte
}

// okResult is a 200 result.
func okResult(contentType string, body []byte) *result {
	return &result{status: http.StatusOK, contentType: contentType, body: body}
}

// jsonResult is v encoded as JSON, 200.
func jsonResult(v any) *result {
	var buf bytes.Buffer
	writeJSONValue(&buf, v)
	return okResult(jsonType, buf.Bytes())
}

// respond is the one place an operation's answer is written: res, or err as
// a problem (a *requestError as itself, anything else as a logged 500).
func respond(w http.ResponseWriter, r *http.Request, res *result, err error) {
	if err != nil {
		writeError(w, r, err)
		return
	}
	write(w, res.status, res.contentType, res.body)
}

// work is an operation's work on what its handler read from the request. It
// must not touch the request or its response writer: it may outlive the
// handler. It charges mem for the memory it is about to spend (a document
// before parsing it), and should return soon after ctx ends, with ctx's
// error.
type work func(ctx context.Context, mem *account) (*result, error)

// holdWork, when set (by tests), runs before every operation's work, on its
// goroutine: a test holds work in progress with it.
var holdWork func(ctx context.Context)

// errTimedOut is the answer to work that outlived the request's deadline.
var errTimedOut = &requestError{status: http.StatusServiceUnavailable, kind: "timeout",
	detail: "the request did not finish within the request timeout (--request-timeout); it was stopped"}

// runBounded runs fn under the request's context on a goroutine of its own
// and answers what it returns, or 503 timeout when the request's deadline
// passes first, or nothing when the client has gone (the log then records
// 499). Once fn has really returned, what mem holds is given back and
// release (the caller's slot), when not nil, is called: both stay taken
// until then. It returns fn's error, or the context's, so that a caller can
// count the outcome.
func runBounded(w http.ResponseWriter, r *http.Request, mem *account, release func(), fn work) error {
	ctx := r.Context()
	done := make(chan struct {
		res *result
		err error
	}, 1)
	go func() {
		out := runWork(ctx, mem, fn)
		// Given back before the answer is written: a client that has its
		// answer finds the budget as it left it.
		mem.release()
		if release != nil {
			release()
		}
		done <- out
	}()
	select {
	case out := <-done:
		if out.err != nil && ctx.Err() != nil && errors.Is(out.err, ctx.Err()) {
			return answerEnded(w, r, ctx)
		}
		respond(w, r, out.res, out.err)
		return out.err
	case <-ctx.Done():
		return answerEnded(w, r, ctx)
	}
}

// runWork runs fn, turning a panic into an error: the work runs on a
// goroutine of its own, where no recover of the request's would catch it
// and the whole process would end.
func runWork(ctx context.Context, mem *account, fn work) (out struct {
	res *result
	err error
}) {
	defer func() {
		if v := recover(); v != nil {
			logAt(ctx, zerolog.ErrorLevel).Str("panic", fmt.Sprint(v)).Bytes("stack", debug.Stack()).Msg("operation panicked")
			out.res, out.err = nil, fmt.Errorf("operation panicked: %v", v)
		}
	}()
	if holdWork != nil {
		holdWork(ctx)
	}
	out.res, out.err = fn(ctx, mem)
	return out
}

// answerEnded answers a request whose context ended before its work did:
// 503 at the deadline; nothing to a client that has gone.
func answerEnded(w http.ResponseWriter, r *http.Request, ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		writeError(w, r, errTimedOut)
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
