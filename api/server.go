package api

import (
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/celine-eu/governanced/api/ui"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// Deps are what the HTTP layer needs from the process.
type Deps struct {
	// Store holds the snapshot being served. Required.
	Store *snapshot.Store
	// Log receives one line per request and every failure. The zero logger
	// discards.
	Log zerolog.Logger
	// Registry is where the metrics are registered; nil makes a private one.
	// Never the global registry: two servers in one process (tests) must not
	// collide.
	Registry *prometheus.Registry
	// Limits bound what one request may cost; zero fields take the defaults.
	Limits Limits
	// Version is reported by /healthz.
	Version string
	// Tokens are the bearer tokens every POST and GET /metrics require
	// (Authorization: Bearer <token>); nil leaves those routes open.
	Tokens *Tokens
	// Conns, when set, is the connection cap the server's listener
	// applies: the server answers the connections it reserves for probes,
	// and counts them in the metrics.
	Conns *ConnLimit
	// Streams ends the long-lived answers (a ?wait, GET /events) when it is
	// done: the caller cancels it when shutdown begins, since a graceful
	// shutdown waits for every request to end. Nil: they end with their
	// requests only.
	Streams context.Context
}

// Limits bound what one request may cost.
type Limits struct {
	// MaxBodyBytes caps a POST body as sent (compressed, for an upload): 413 above.
	MaxBodyBytes int64
	// MaxUploadBytes caps the bytes an upload extracts to.
	MaxUploadBytes int64
	// MaxUploadFiles caps the entries (files and directories) of an upload.
	MaxUploadFiles int
	// MaxUploadApps, MaxUploadSources and MaxUploadValues bound what one
	// validation checks: the apps (bases), the sources keys of its
	// documents and the YAML values they hold. A check's time and memory
	// grow with these, whatever the upload's bytes compress to: over them
	// the validation stops and answers 413.
	MaxUploadApps, MaxUploadSources, MaxUploadValues int
	// MaxUploadDocumentBytes caps one file of an upload (a larger one is a
	// load-error finding): reading a YAML document costs memory many times
	// its size.
	MaxUploadDocumentBytes int
	// ValidationWorkers bounds the units one validation checks at once.
	ValidationWorkers int
	// RequestTimeout bounds a request's work (a validation above all).
	RequestTimeout time.Duration
	// MaxConcurrentValidations bounds POST /validate runs at once; one more
	// is refused at once with 429 and Retry-After.
	MaxConcurrentValidations int
	// MaxConcurrentOps bounds POST /resolve, /merge and /policy/evaluate
	// runs at once, together; one more is refused at once with 429. Each
	// parses a body of up to MaxBodyBytes, which costs seconds and hundreds
	// of megabytes at the limit.
	MaxConcurrentOps int
	// MaxWaiters bounds the requests waiting for a change (?wait) and the
	// event streams (GET /events) at once; one more is refused with 429.
	MaxWaiters int
	// MaxWaitersPerClient bounds the waiter slots one remote address holds
	// (0: a quarter of MaxWaiters), so one peer cannot take them all.
	MaxWaitersPerClient int
	// MaxWait is the longest a request may wait for a change, and the
	// longest an event stream lasts before the client must reconnect; a
	// longer ?wait waits this long.
	MaxWait time.Duration
	// MaxWorkMemory bounds the working memory the expensive requests
	// (POST /validate, /diff, /resolve, /merge, /policy/evaluate) hold
	// together, as each estimates it from what it reads (workmem.go): 413
	// for a request that alone would hold more, 503 while others hold it.
	MaxWorkMemory int64
	// MaxGraphBytes bounds an answer of GET /graph: a larger rendering is
	// refused with 413, and read page by page (?limit, ?offset).
	MaxGraphBytes int
	// MaxKeptRuleBytes bounds the rule parts kept for the datasets read
	// (ruleParts), by what each holds of its own: a dataset read again
	// within it is written from its part, not merged and encoded again;
	// past it, the parts least read are forgotten. NoKeptRuleParts keeps
	// none.
	MaxKeptRuleBytes int64
}

// NoKeptRuleParts, as Limits.MaxKeptRuleBytes, keeps no rule part: every
// read merges and encodes its dataset's rule. A server whose reads reach
// every dataset holds about twice its parts' bytes in resident memory
// (the collector's headroom); this trades that memory for the time of
// each read.
const NoKeptRuleParts = -1

// DefaultLimits are the limits of a zero Limits.
var DefaultLimits = Limits{
	MaxBodyBytes:             32 << 20,
	MaxUploadBytes:           128 << 20,
	MaxUploadFiles:           10000,
	MaxUploadApps:            2000,
	MaxUploadSources:         100_000,
	MaxUploadValues:          5_000_000,
	MaxUploadDocumentBytes:   1 << 20,
	ValidationWorkers:        2,
	RequestTimeout:           30 * time.Second,
	MaxConcurrentValidations: 4,
	MaxConcurrentOps:         8,
	MaxWaiters:               256,
	MaxWait:                  5 * time.Minute,
	MaxWorkMemory:            1 << 30,
	MaxGraphBytes:            16 << 20,
	MaxKeptRuleBytes:         128 << 20,
}

func (l Limits) withDefaults() Limits {
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultLimits.MaxBodyBytes
	}
	if l.MaxUploadBytes <= 0 {
		l.MaxUploadBytes = DefaultLimits.MaxUploadBytes
	}
	if l.MaxUploadFiles <= 0 {
		l.MaxUploadFiles = DefaultLimits.MaxUploadFiles
	}
	if l.MaxUploadApps <= 0 {
		l.MaxUploadApps = DefaultLimits.MaxUploadApps
	}
	if l.MaxUploadSources <= 0 {
		l.MaxUploadSources = DefaultLimits.MaxUploadSources
	}
	if l.MaxUploadValues <= 0 {
		l.MaxUploadValues = DefaultLimits.MaxUploadValues
	}
	if l.MaxUploadDocumentBytes <= 0 {
		l.MaxUploadDocumentBytes = DefaultLimits.MaxUploadDocumentBytes
	}
	if l.ValidationWorkers <= 0 {
		l.ValidationWorkers = DefaultLimits.ValidationWorkers
	}
	if l.RequestTimeout <= 0 {
		l.RequestTimeout = DefaultLimits.RequestTimeout
	}
	if l.MaxConcurrentValidations <= 0 {
		l.MaxConcurrentValidations = DefaultLimits.MaxConcurrentValidations
	}
	if l.MaxConcurrentOps <= 0 {
		l.MaxConcurrentOps = DefaultLimits.MaxConcurrentOps
	}
	if l.MaxWaiters <= 0 {
		l.MaxWaiters = DefaultLimits.MaxWaiters
	}
	if l.MaxWaitersPerClient <= 0 {
		l.MaxWaitersPerClient = max(1, l.MaxWaiters/4)
	}
	if l.MaxWait <= 0 {
		l.MaxWait = DefaultLimits.MaxWait
	}
	if l.MaxWorkMemory <= 0 {
		l.MaxWorkMemory = DefaultLimits.MaxWorkMemory
	}
	if l.MaxGraphBytes <= 0 {
		l.MaxGraphBytes = DefaultLimits.MaxGraphBytes
	}
	if l.MaxKeptRuleBytes == 0 {
		l.MaxKeptRuleBytes = DefaultLimits.MaxKeptRuleBytes
	}
	return l
}

// server is the state the handlers share.
type server struct {
	store       *snapshot.Store
	log         zerolog.Logger
	limits      Limits
	version     string
	metrics     *metrics
	validations chan struct{} // a semaphore: one token per running validation
	ops         chan struct{} // the same for /resolve, /merge and /policy/evaluate
	waiters     *waiterSlots  // ?wait and /events, shared by remote address
	// streamWriteTimeout is streamWriteTimeout; a test shortens it.
	streamWriteTimeout time.Duration
	memory             *workMemory // what the expensive requests hold (workmem.go)
	ruleParts          *ruleParts  // the rule parts kept for the datasets read (ruleparts.go)
	streams            context.Context
	conns              *ConnLimit  // nil: no connection cap
	auth               *Tokens     // nil: authentication is off
	pages              *ui.Pages   // the web page under /ui
	mux                *chi.Mux    // every route; ServeHTTP prepares a request for it
	answers            answerCache // the bodies of the revision served (bodies.go)
}

// NewServer returns the HTTP handler serving every route of http-api.md.
func NewServer(d Deps) http.Handler {
	h, _ := newServer(d)
	return h
}

func newServer(d Deps) (http.Handler, *server) {
	reg := d.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	s := &server{
		store:   d.Store,
		log:     d.Log,
		limits:  d.Limits.withDefaults(),
		version: d.Version,
		auth:    d.Tokens,
		conns:   d.Conns,
	}
	s.validations = make(chan struct{}, s.limits.MaxConcurrentValidations)
	s.ops = make(chan struct{}, s.limits.MaxConcurrentOps)
	s.waiters = newWaiterSlots(s.limits.MaxWaiters, s.limits.MaxWaitersPerClient)
	s.streamWriteTimeout = streamWriteTimeout
	s.memory = newWorkMemory(s.limits.MaxWorkMemory)
	if s.limits.MaxKeptRuleBytes > 0 {
		s.ruleParts = newRuleParts(d.Store, s.limits.MaxKeptRuleBytes)
	}
	s.streams = d.Streams
	if s.streams == nil {
		s.streams = context.Background()
	}
	s.metrics = newMetrics(reg, d.Store, d.Version, d.Conns, s.memory, s.ruleParts)
	s.pages = ui.New(ui.Options{Store: d.Store, Version: d.Version, Graph: (*snapshot.Snapshot).GraphOf, OnError: func(r *http.Request, err error) {
		logAt(r.Context(), zerolog.ErrorLevel).Err(err).Msg("page failed to render")
	}})
	s.mux = s.routes(reg)
	return s, s
}
