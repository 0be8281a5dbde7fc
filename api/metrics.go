package api

import (
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/celine-eu/governanced/internal/snapshot"
)

// metrics are the request-side metrics; the tree-side ones are read from the
// store at scrape time (storeCollector), so they can never disagree with it.
type metrics struct {
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	series      sync.Map // requestKey → *requestSeries
	validations *prometheus.CounterVec
	validating  prometheus.Gauge
	diffs       *prometheus.CounterVec
	// The waiter slots (?wait and GET /events).
	waiting        prometheus.Gauge
	waitersRefused *prometheus.CounterVec
	streamsEnded   *prometheus.CounterVec
}

func newMetrics(reg *prometheus.Registry, store *snapshot.Store, version string, conns *ConnLimit, memory *workMemory, parts *ruleParts) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "governanced_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "governanced_http_request_duration_seconds",
			Help: "Time to answer an HTTP request, by route pattern and method.",
			// Lookups answer in microseconds; a validation of a large upload
			// can take seconds.
			Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		}, []string{"route", "method"}),
		validations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "governanced_validations_total",
			Help: "POST /validate runs, by result: pass, fail (the report's ok is false), rejected (the upload or options were unusable) or busy (refused with 429: every slot was taken).",
		}, []string{"result"}),
		validating: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "governanced_validations_in_progress",
			Help: "POST /validate and POST /diff runs in progress (they share the validation slots).",
		}),
		diffs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "governanced_diffs_total",
			Help: "POST /diff runs, by result: changes, no-change, rejected (the upload or options were unusable, or the trees could not be compared) or busy (refused with 429: every validation slot was taken).",
		}, []string{"result"}),
	}
	m.waiting = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "governanced_waiters",
		Help: "Requests waiting for a change (?wait) and GET /events streams in progress: the waiter slots taken.",
	})
	m.waitersRefused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "governanced_waiters_refused_total",
		Help: "Waits and event streams refused with 429, by reason: full (every waiter slot taken) or client-share (the remote address held its share).",
	}, []string{"reason"})
	m.streamsEnded = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "governanced_event_streams_ended_total",
		Help: "GET /events streams ended, by reason: client (it left), write-failed (it did not read within the stream write timeout), max-duration (--max-wait passed; it reconnects) or shutdown.",
	}, []string{"reason"})
	buildInfo := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "governanced_build_info",
		Help:        "Always 1; the labels say which governanced is running.",
		ConstLabels: prometheus.Labels{"version": version, "goversion": runtime.Version()},
	})
	buildInfo.Set(1)
	reg.MustRegister(m.requests, m.duration, m.validations, m.validating, m.diffs, m.waiting, m.waitersRefused, m.streamsEnded, buildInfo,
		&storeCollector{store: store},
		collectors.NewBuildInfoCollector(),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(&memoryCollector{memory}, &rulePartsCollector{parts})
	if conns != nil {
		reg.MustRegister(&connCollector{conns})
	}
	return m
}

var (
	descMemoryUsed = prometheus.NewDesc("governanced_work_memory_bytes",
		"Working memory the expensive requests in progress hold, as they estimate it (POST /validate, /diff, /resolve, /merge, /policy/evaluate).", nil, nil)
	descMemoryPeak = prometheus.NewDesc("governanced_work_memory_peak_bytes",
		"The most working memory the expensive requests have held at once.", nil, nil)
	descMemoryLimit = prometheus.NewDesc("governanced_work_memory_limit_bytes",
		"The working memory the expensive requests may hold together (--max-work-memory).", nil, nil)
	descMemoryRefused = prometheus.NewDesc("governanced_work_memory_refused_total",
		"Requests refused for working memory, by reason: alone (it would need more than the whole budget: 413) or busy (others held it: 503 overloaded).", []string{"reason"}, nil)
)

// memoryCollector reports the working-memory budget at scrape time.
type memoryCollector struct{ m *workMemory }

func (c *memoryCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descMemoryUsed, descMemoryPeak, descMemoryLimit, descMemoryRefused} {
		ch <- d
	}
}

func (c *memoryCollector) Collect(ch chan<- prometheus.Metric) {
	used, peak, alone, busy := c.m.state()
	ch <- prometheus.MustNewConstMetric(descMemoryUsed, prometheus.GaugeValue, float64(used))
	ch <- prometheus.MustNewConstMetric(descMemoryPeak, prometheus.GaugeValue, float64(peak))
	ch <- prometheus.MustNewConstMetric(descMemoryLimit, prometheus.GaugeValue, float64(c.m.limit))
	ch <- prometheus.MustNewConstMetric(descMemoryRefused, prometheus.CounterValue, float64(alone), "alone")
	ch <- prometheus.MustNewConstMetric(descMemoryRefused, prometheus.CounterValue, float64(busy), "busy")
}

var (
	descPartsHeld = prometheus.NewDesc("governanced_kept_rule_bytes",
		"Bytes the rule parts kept for the datasets read hold of their own (their shared members apart), as counted: at most what the last sweep counted plus every part kept since.", nil, nil)
	descPartsLimit = prometheus.NewDesc("governanced_kept_rule_limit_bytes",
		"The bytes of rule parts kept before the least read are forgotten (--max-kept-rule-bytes).", nil, nil)
	descPartsMembers = prometheus.NewDesc("governanced_kept_rule_member_bytes",
		"Bytes of the members the kept rule parts write, each held once; past 64 MiB no new member is taken, and a dataset whose part needs one is encoded afresh at each read.", nil, nil)
	descPartsForgotten = prometheus.NewDesc("governanced_kept_rule_forgotten_bytes_total",
		"Bytes of rule parts forgotten to stay within --max-kept-rule-bytes; their datasets' parts are made again when next read.", nil, nil)
)

// rulePartsCollector reports the kept rule parts at scrape time.
type rulePartsCollector struct{ k *ruleParts }

func (c *rulePartsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descPartsHeld, descPartsLimit, descPartsMembers, descPartsForgotten} {
		ch <- d
	}
}

func (c *rulePartsCollector) Collect(ch chan<- prometheus.Metric) {
	var held, limit, members, forgotten float64 // all 0 when none are kept
	if k := c.k; k != nil {
		held, limit, members, forgotten = float64(k.held.Load()), float64(k.budget), float64(k.members.bytes()), float64(k.forgotten.Load())
	}
	ch <- prometheus.MustNewConstMetric(descPartsHeld, prometheus.GaugeValue, held)
	ch <- prometheus.MustNewConstMetric(descPartsLimit, prometheus.GaugeValue, limit)
	ch <- prometheus.MustNewConstMetric(descPartsMembers, prometheus.GaugeValue, members)
	ch <- prometheus.MustNewConstMetric(descPartsForgotten, prometheus.CounterValue, forgotten)
}

var (
	descConnsOpen = prometheus.NewDesc("governanced_connections_open",
		"Connections open, of governanced_connections_max.", nil, nil)
	descConnsMax = prometheus.NewDesc("governanced_connections_max",
		"The connection cap (--max-connections); the last governanced_connections_reserved are kept for the probes and the metrics.", nil, nil)
	descConnsReserved = prometheus.NewDesc("governanced_connections_reserved",
		"Connections of the cap kept for the probes and the metrics.", nil, nil)
	descConnsShed = prometheus.NewDesc("governanced_connections_shed_total",
		"Connections doing nothing (idle between requests, or silent) closed to make room for new ones near the cap.", nil, nil)
	descConnsRefused = prometheus.NewDesc("governanced_connections_refused_total",
		"Connections closed as soon as accepted: the cap was reached and none could be shed.", nil, nil)
)

// connCollector reports the connection cap's state at scrape time.
type connCollector struct{ l *ConnLimit }

func (c *connCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descConnsOpen, descConnsMax, descConnsReserved, descConnsShed, descConnsRefused} {
		ch <- d
	}
}

func (c *connCollector) Collect(ch chan<- prometheus.Metric) {
	open, shed, full := c.l.counts()
	ch <- prometheus.MustNewConstMetric(descConnsOpen, prometheus.GaugeValue, float64(open))
	ch <- prometheus.MustNewConstMetric(descConnsMax, prometheus.GaugeValue, float64(c.l.max))
	ch <- prometheus.MustNewConstMetric(descConnsReserved, prometheus.GaugeValue, float64(c.l.reserve))
	ch <- prometheus.MustNewConstMetric(descConnsShed, prometheus.CounterValue, float64(shed))
	ch <- prometheus.MustNewConstMetric(descConnsRefused, prometheus.CounterValue, float64(full))
}

// requestKey names the series one request is counted in.
type requestKey struct {
	route, method string
	code          int
}

// requestSeries are a request key's counter and histogram.
type requestSeries struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

// observeRequest counts one answered request. The series are looked up once
// per key and kept: the vectors' own lookup hashes every label and takes a
// shared lock, work every request would repeat for the same few keys.
// route must be a route pattern or "unmatched", never a raw path.
func (m *metrics) observeRequest(route, method string, code int, elapsed time.Duration) {
	method = knownMethod(method)
	key := requestKey{route, method, code}
	v, ok := m.series.Load(key)
	if !ok {
		v, _ = m.series.LoadOrStore(key, &requestSeries{
			count:    m.requests.WithLabelValues(route, method, strconv.Itoa(code)),
			duration: m.duration.WithLabelValues(route, method),
		})
	}
	series := v.(*requestSeries)
	series.count.Inc()
	series.duration.Observe(elapsed.Seconds())
}

// knownMethod is method when HTTP defines it, else "other": the method is the
// client's to choose, and every new label value is a new series kept for the
// life of the process.
func knownMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}

var (
	descReloads = prometheus.NewDesc("governanced_reloads_total",
		"Snapshot reloads, by result: ok (activated) or failed (rejected by the check, or unreadable inputs).", []string{"result"}, nil)
	descLastSuccess = prometheus.NewDesc("governanced_last_reload_success_timestamp_seconds",
		"When the snapshot being served was activated, as a Unix time.", nil, nil)
	descRevision = prometheus.NewDesc("governanced_revision_info",
		"The revision being served, as a label; the value is always 1.", []string{"revision"}, nil)
	descAge = prometheus.NewDesc("governanced_snapshot_age_seconds",
		"Seconds since the snapshot being served was built.", nil, nil)
	descLastReloadOK = prometheus.NewDesc("governanced_last_reload_ok",
		"1 when the last reload left the served tree matching the inputs, 0 when it was rejected or failed, or held apps.", nil, nil)
	descAppsHeld = prometheus.NewDesc("governanced_apps_held",
		"Apps whose files fail the check, served at their last good version or not at all (serve --isolate-apps).", nil, nil)
	descPersisted = prometheus.NewDesc("governanced_serving_persisted",
		"1 while the revision served is one the state directory kept, in place of a tree that cannot be served (serve --state-dir); else 0.", nil, nil)
	descApps     = prometheus.NewDesc("governanced_apps", "Apps in the served tree.", nil, nil)
	descSources  = prometheus.NewDesc("governanced_sources", "Sources keys in the served tree, literal and glob.", nil, nil)
	descDatasets = prometheus.NewDesc("governanced_datasets", "Literal sources keys in the served tree.", nil, nil)
	descPatterns = prometheus.NewDesc("governanced_patterns", "Glob sources keys in the served tree.", nil, nil)
	descOwners   = prometheus.NewDesc("governanced_owners", "Owners in the merged registry.", nil, nil)

	descGraphPipelines = prometheus.NewDesc("governanced_graph_pipelines",
		"Pipelines in the served tree's dependency graph (GET /graph: the base files).", nil, nil)
	descGraphEdges = prometheus.NewDesc("governanced_graph_edges",
		"Producer-to-consumer edges in the served tree's dependency graph.", nil, nil)
	descGraphFindings = prometheus.NewDesc("governanced_graph_findings",
		"Findings of the served tree's dependency graph, by kind (graph.md), every kind the service computes included at 0.", []string{"kind"}, nil)
)

// storeCollector reports the store's state at scrape time.
type storeCollector struct{ store *snapshot.Store }

func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descReloads, descLastSuccess, descRevision, descAge, descLastReloadOK, descAppsHeld, descPersisted, descApps, descSources, descDatasets, descPatterns, descOwners,
		descGraphPipelines, descGraphEdges, descGraphFindings} {
		ch <- d
	}
}

func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.store.Stats()
	ch <- prometheus.MustNewConstMetric(descReloads, prometheus.CounterValue, float64(st.OK), "ok")
	ch <- prometheus.MustNewConstMetric(descReloads, prometheus.CounterValue, float64(st.Failed), "failed")
	if last := c.store.LastReload(); last != nil {
		ok := 0.0
		if last.OK() {
			ok = 1
		}
		ch <- prometheus.MustNewConstMetric(descLastReloadOK, prometheus.GaugeValue, ok)
	}
	snap, held, kept := c.store.Serving()
	ch <- prometheus.MustNewConstMetric(descAppsHeld, prometheus.GaugeValue, float64(len(held)))
	servingPersisted := 0.0
	if kept != nil {
		servingPersisted = 1
	}
	ch <- prometheus.MustNewConstMetric(descPersisted, prometheus.GaugeValue, servingPersisted)
	if snap == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(descLastSuccess, prometheus.GaugeValue, float64(st.LastSuccess.UnixNano())/1e9)
	ch <- prometheus.MustNewConstMetric(descRevision, prometheus.GaugeValue, 1, snap.Revision)
	ch <- prometheus.MustNewConstMetric(descAge, prometheus.GaugeValue, time.Since(snap.LoadedAt).Seconds())
	ch <- prometheus.MustNewConstMetric(descApps, prometheus.GaugeValue, float64(snap.Counts.Apps))
	ch <- prometheus.MustNewConstMetric(descSources, prometheus.GaugeValue, float64(snap.Counts.Sources))
	ch <- prometheus.MustNewConstMetric(descDatasets, prometheus.GaugeValue, float64(snap.Counts.Datasets))
	ch <- prometheus.MustNewConstMetric(descPatterns, prometheus.GaugeValue, float64(snap.Counts.Patterns))
	ch <- prometheus.MustNewConstMetric(descOwners, prometheus.GaugeValue, float64(snap.Counts.Owners))
	gc := snap.GraphCounts()
	ch <- prometheus.MustNewConstMetric(descGraphPipelines, prometheus.GaugeValue, float64(gc.Pipelines))
	ch <- prometheus.MustNewConstMetric(descGraphEdges, prometheus.GaugeValue, float64(gc.Edges))
	for _, k := range snapshot.GraphKinds() {
		ch <- prometheus.MustNewConstMetric(descGraphFindings, prometheus.GaugeValue, float64(gc.Findings[k]), string(k))
	}
}
