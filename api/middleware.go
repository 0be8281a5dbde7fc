package api

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"time"

	"github.com/rs/zerolog"
)

type ctxKey int

// keyRequest holds a request's *requestInfo: one context value, so a request
// costs one context allocation rather than one per item.
const keyRequest ctxKey = 0

type requestInfo struct {
	// id is the request's id, held as the X-Request-Id header's value so
	// that the header needs no slice of its own.
	id  [1]string
	log *zerolog.Logger
	// route is the pattern chi routed the request to, "" for none: what
	// the request is counted and logged under (routePattern sets it).
	route string
}

func requestID(ctx context.Context) string {
	if ri, ok := ctx.Value(keyRequest).(*requestInfo); ok {
		return ri.id[0]
	}
	return ""
}

var nopLogger = zerolog.Nop()

// logAt starts a log event at level for the request in ctx, carrying its id.
// The server's logger travels in the context as a pointer and the id is added
// per event, so a request that logs one line allocates no child logger.
func logAt(ctx context.Context, level zerolog.Level) *zerolog.Event {
	ri, ok := ctx.Value(keyRequest).(*requestInfo)
	if !ok {
		return nopLogger.WithLevel(level)
	}
	return ri.log.WithLevel(level).Str("request_id", ri.id[0])
}

// requestContext is everything a request carries through the server, in one
// allocation: its id and logger, the recorder of what was answered, and
// the request itself as handed on with this context. A
// middleware per concern would take a context value or a wrapper each: at
// tens of thousands of requests a second on a large heap, every allocation
// is GC work.
type requestContext struct {
	context.Context
	info requestInfo
	rec  recorder
	// req is the request as the server hands it on, with this context:
	// held here, it is made in the same allocation.
	req http.Request
}

func (c *requestContext) Value(key any) any {
	if key == keyRequest {
		return &c.info
	}
	return c.Context.Value(key)
}

// ServeHTTP gives every request an id, the caller's X-Request-Id when it is a
// sane token (so one id follows a request through a proxy chain), else a
// fresh one, echoed in the response and in every log line and problem; hands
// it to chi, which routes every request; then logs one line for it and
// counts it by route pattern (never by raw path: dataset names would explode
// the label set). A handler's panic becomes a 500 problem instead of a
// dropped connection.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := headerValue(r.Header, requestIDHeader)
	if !saneID(id) {
		id = newRequestID()
	}
	ctx := &requestContext{Context: r.Context(), info: requestInfo{id: [1]string{id}, log: &s.log}}
	ctx.rec.ResponseWriter = w
	w.Header()[requestIDHeader] = ctx.info.id[:]
	ctx.req = *r.WithContext(ctx)
	r = &ctx.req
	defer s.observe(ctx, r, start)
	if s.conns != nil && reservedConn(r) && s.answerReserved(&ctx.rec, r) {
		return
	}
	s.mux.ServeHTTP(&ctx.rec, r)
}

// routePattern, the first of chi's middlewares, notes the pattern chi
// routed a request to once the request is answered, for observe: chi sets
// it as the Pattern of the request it routes (this one: chi's request
// copy, which observe does not see), "" when no route matched.
func routePattern(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if ri, ok := r.Context().Value(keyRequest).(*requestInfo); ok {
				ri.route = r.Pattern
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// newRequestID is 12 random bytes in hex. Request ids need to be unique, not
// secret: the runtime's generator is enough and asks the kernel for nothing.
func newRequestID() string {
	var b [12]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint32(b[8:], rand.Uint32())
	return hex.EncodeToString(b[:])
}

// requestIDHeader is the request id's header, in canonical form.
const requestIDHeader = "X-Request-Id"

// headerValue is h.Get(name) for a name in canonical form, as net/http
// stores a request's names and as this package writes its own: Get
// canonicalises its argument on every call.
func headerValue(h http.Header, name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func saneID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// recorder remembers what a handler answered, for the log and the metrics:
// the status it wrote, the bytes that reached the connection, and the first
// write that failed (the client gone, or the write deadline passed), after
// which the client did not get the answer whole.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int
	failed error
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	if err != nil && r.failed == nil {
		r.failed = err
	}
	return n, err
}

// statusNotDelivered is the status the log and the metrics record for a
// request whose client did not get the answer whole: it left before the
// answer, or writing it failed. It is nginx's 499 ("client closed
// request"), which log tooling knows; the status the handler meant to
// send is logged beside it as intended_status.
const statusNotDelivered = 499

// delivered is the status the client really got: the handler's, unless
// the answer never reached it.
func (r *recorder) delivered(ctx context.Context) int {
	switch {
	case r.failed != nil:
		return statusNotDelivered
	case r.status == 0 && ctx.Err() != nil:
		// The handler returned without answering because the client left
		// (net/http would otherwise send an empty 200).
		return statusNotDelivered
	case r.status == 0:
		return http.StatusOK
	}
	return r.status
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// observe runs when a request is done, deferred by ServeHTTP: it recovers a
// handler's panic, then counts and logs the request.
func (s *server) observe(ctx *requestContext, r *http.Request, start time.Time) {
	rec := &ctx.rec
	if v := recover(); v != nil {
		if v == http.ErrAbortHandler {
			panic(v)
		}
		logAt(ctx, zerolog.ErrorLevel).Str("panic", fmt.Sprint(v)).Bytes("stack", debug.Stack()).Msg("handler panicked")
		if rec.status == 0 {
			refuse(rec, r, errInternal)
		}
	}
	status := rec.delivered(ctx.Context)
	elapsed := time.Since(start)
	route := ctx.info.route
	if route == "" {
		route = "unmatched"
	}
	s.metrics.observeRequest(route, r.Method, status, elapsed)
	level := zerolog.InfoLevel
	switch {
	case route == "/readyz" && status == http.StatusServiceUnavailable:
		// "Not ready yet" is the probe's answer while the first load runs,
		// not a failure: at error level every start logged a run of errors.
		level = zerolog.DebugLevel
	case status >= 500:
		level = zerolog.ErrorLevel
	case status == statusNotDelivered:
		level = zerolog.WarnLevel
	case route == "/healthz" || route == "/readyz" || route == "/metrics":
		level = zerolog.DebugLevel // probes every few seconds would drown the rest
	case status < 400 && isDatasetRead(route):
		// Services read one dataset's answers at thousands a second: a line
		// each would cost the server more than the answer does and fill a
		// disk within hours, while /metrics counts them by route and status.
		// Failed reads stay at info; --log-level debug logs every read.
		level = zerolog.DebugLevel
	}
	ev := logAt(ctx, level)
	if !ev.Enabled() {
		// The line is not written (a read at info): nothing is gathered
		// for it.
		return
	}
	ev = ev.Str("method", r.Method).
		Str("route", route).
		Str("path", r.URL.Path).
		Int("status", status).
		Int("bytes", rec.bytes).
		Float64("duration_ms", float64(elapsed.Microseconds())/1000).
		Str("revision", headerValue(rec.Header(), revisionHeader))
	if status == statusNotDelivered {
		if rec.status != 0 {
			ev = ev.Int("intended_status", rec.status)
		}
		if rec.failed != nil {
			ev = ev.Str("write_error", rec.failed.Error())
		} else {
			ev = ev.Str("write_error", "the client left before the answer")
		}
	}
	ev.Msg("request")
}

// isDatasetRead reports whether route is one of the reads of one dataset
// (its rule, exposure or facet).
func isDatasetRead(route string) bool { return slices.Contains(datasetReads[:], route) }

// withTimeout bounds a request's work: its context ends
// Limits.RequestTimeout after the request started, before the server's
// write timeout, so that runBounded still has time to answer 503. Only the
// expensive operations use it: a lookup answers in microseconds, and a
// timer per request would cost more than the lookup; the server's write
// timeout bounds everything.
func (s *server) withTimeout(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.limits.RequestTimeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// limitBody bounds a request's body to Limits.MaxBodyBytes: reading past
// it fails with *http.MaxBytesError (413), and the server closes the
// connection after the answer rather than read the rest.
func (s *server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, s.limits.MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// opsRetryAfterSeconds is the Retry-After of an operation refused for want of
// a slot: they take a second or less.
const opsRetryAfterSeconds = 1

// operation runs one of the stateless operations (POST /resolve, /merge,
// /policy/evaluate): it takes an operation slot, at most
// Limits.MaxConcurrentOps of them together, refusing one more at once as
// /validate does; reads the request with read; and runs the work read
// returns under runBounded, which keeps the slot until the work has ended.
func (s *server) operation(r *http.Request, read func(*http.Request) (work, error)) (result, error) {
	release, err := takeSlot(s.ops, "operation", opsRetryAfterSeconds)
	if err != nil {
		return result{}, err
	}
	mem := s.newAccount(r.Context(), "this request")
	fn, err := func() (work, error) {
		if err := chargeBody(r, mem, bodyCost, s.limits.MaxBodyBytes); err != nil {
			return nil, err
		}
		return read(r)
	}()
	if err != nil {
		mem.release()
		release()
		return result{}, err
	}
	return runBounded(r, mem, release, fn)
}

// busy is the refusal of a request for want of one of slots slots of a
// kind: 429 with Retry-After, which curl --retry and CI clients back off on.
func busy(kind string, slots, retryAfter int) *requestError {
	unit := "seconds"
	if retryAfter == 1 {
		unit = "second"
	}
	return &requestError{status: http.StatusTooManyRequests, kind: "busy",
		detail: fmt.Sprintf("all %d %s slots are busy; retry in %d %s", slots, kind, retryAfter, unit),
		header: map[string]string{"Retry-After": strconv.Itoa(retryAfter)}}
}
