package api

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/celine-eu/governanced/api/ui"
)

// datasetReads are the reads of one dataset: nearly all of a server's
// traffic, and small answers.
var datasetReads = [...]string{"/datasets/{id}/rule", "/datasets/{id}/exposure", "/datasets/{id}/facet"}

// routes is every route the server answers; openapi.yaml describes exactly
// these (a test walks both).
func (s *server) routes(reg *prometheus.Registry) *chi.Mux {
	root := chi.NewRouter()
	// Every request is observed (logged, counted) by ServeHTTP, around
	// this, under the pattern chi routed it to.
	root.Use(routePattern)
	// HEAD answers like GET without a body (load balancers probe with it).
	root.Use(middleware.GetHead)

	// Every route reads its query strictly, against the parameters
	// openapi.yaml declares for it (query.go), before anything else reads
	// it.
	get := func(mw chi.Router, pattern string, h http.Handler) http.HandlerFunc {
		handler := strictQuery(http.MethodGet, pattern, h.ServeHTTP)
		mw.Get(pattern, handler)
		return handler
	}
	post := func(mw chi.Router, pattern string, h http.HandlerFunc) {
		mw.Post(pattern, strictQuery(http.MethodPost, pattern, h))
	}
	// The reads of one dataset go without compress: their answers are a
	// few hundred bytes to a few kilobytes, mostly under compressMin, and
	// holding them to decide costs every read (ADR-0014 has the figures).
	reads := []http.HandlerFunc{s.datasetRule, s.datasetExposure, s.datasetFacet}
	for i, pattern := range datasetReads {
		get(root, pattern, s.waitable(reads[i]))
	}

	// Everything else: large answers are gzipped for clients that ask
	// (compress.go).
	r := root.With(compress)
	// The served tree: every answer may wait for the next revision (?wait).
	tree := func(pattern string, h http.HandlerFunc) http.HandlerFunc { return get(r, pattern, s.waitable(h)) }

	// Health and operations.
	get(r, "/healthz", http.HandlerFunc(s.healthz))
	get(r, "/readyz", http.HandlerFunc(s.readyz))
	get(r.With(s.requireAuth), "/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	get(r, "/status", http.HandlerFunc(s.status))
	get(r, "/openapi.yaml", http.HandlerFunc(s.openapi))
	get(r, "/schemas/{name}", http.HandlerFunc(s.schema))

	tree("/apps", s.listApps)
	tree("/apps/{app}", s.getApp)
	tree("/apps/{app}/datasets/{id}/rule", s.appDatasetRule)
	tree("/datasets", s.listDatasets)
	tree("/datasets/{id}/producers", s.datasetProducers)
	tree("/datasets/{id}/consumers", s.datasetConsumers)
	tree("/graph", s.graphDoc)
	tree("/graph/pipelines/{name}", s.graphPipeline)
	tree("/owners", s.listOwners)
	tree("/owners/{key}", s.getOwner)
	tree("/unresolved-owners", s.unresolvedOwners)
	tree("/report", s.report)
	get(r, "/events", http.HandlerFunc(s.events))

	// The web page for people (api/ui): read-only HTML over the same
	// snapshot, open like the read routes above.
	r.Route(ui.Prefix, s.pages.Routes)

	// Operations for clients and CI (behind the bearer token when one is
	// configured, like /metrics); /diff compares an upload with the served
	// tree.
	ops := r.With(s.requireAuth, s.withTimeout)
	post(ops, "/validate", s.validate)
	post(ops, "/diff", s.diff)
	post(ops, "/resolve", s.resolve)
	post(ops, "/merge", s.merge)
	post(ops, "/policy/evaluate", s.policyEvaluate)

	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, r, http.StatusNotFound, "not-found", "no route "+cut(r.URL.Path, 200)+"; GET /openapi.yaml lists them")
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, req *http.Request) {
		var allowed []string
		path := req.URL.RawPath // what chi routed on
		if path == "" {
			path = req.URL.Path
		}
		for _, m := range []string{http.MethodGet, http.MethodPost} {
			if root.Match(chi.NewRouteContext(), m, path) {
				allowed = append(allowed, m)
			}
		}
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeProblem(w, req, http.StatusMethodNotAllowed, "method-not-allowed", cut(req.Method, 20)+" is not allowed on "+cut(req.URL.Path, 200)+"; use "+strings.Join(allowed, " or "))
	})
	return root
}
