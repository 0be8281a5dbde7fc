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
	// it. A handler returns its answer, which respond writes (answer.go).
	get := func(mw chi.Router, pattern string, h http.Handler) {
		mw.Get(pattern, strictQuery(http.MethodGet, pattern, h.ServeHTTP))
	}
	post := func(mw chi.Router, pattern string, h handler) {
		mw.Post(pattern, strictQuery(http.MethodPost, pattern, handle(h)))
	}
	// The served tree: every answer may wait for the next revision (?wait).
	tree := func(mw chi.Router, pattern string, h handler) { get(mw, pattern, s.waitable(handle(h))) }

	// The reads of one dataset go without compress: their answers are a
	// few hundred bytes to a few kilobytes, mostly under compressMin, and
	// holding them to decide costs every read (ADR-0015 has the figures).
	for i, h := range [...]handler{s.datasetRule, s.datasetExposure, s.datasetFacet} {
		tree(root, datasetReads[i], h)
	}

	// Everything else: large answers are gzipped for clients that ask
	// (compress.go).
	r := root.With(compress)

	// Health and operations.
	get(r, "/healthz", handle(s.healthz))
	get(r, "/readyz", handle(s.readyz))
	get(r.With(s.requireAuth), "/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	get(r, "/status", handle(s.status))
	get(r, "/openapi.yaml", handle(s.openapi))
	get(r, "/schemas/{name}", handle(s.schema))

	tree(r, "/apps", s.listApps)
	tree(r, "/apps/{app}", s.getApp)
	tree(r, "/apps/{app}/datasets/{id}/rule", s.appDatasetRule)
	tree(r, "/datasets", s.listDatasets)
	tree(r, "/datasets/{id}/producers", s.datasetProducers)
	tree(r, "/datasets/{id}/consumers", s.datasetConsumers)
	tree(r, "/graph", s.graphDoc)
	tree(r, "/graph/pipelines/{name}", s.graphPipeline)
	tree(r, "/owners", s.listOwners)
	tree(r, "/owners/{key}", s.getOwner)
	tree(r, "/unresolved-owners", s.unresolvedOwners)
	tree(r, "/report", s.report)
	// An event stream writes as it goes: the one handler that does.
	get(r, "/events", http.HandlerFunc(s.events))

	// The web page for people (api/ui): read-only HTML over the same
	// snapshot, open like the read routes above. The service's own
	// address leads there: it is what a person types.
	r.Route(ui.Prefix, s.pages.Routes)
	get(r, "/", http.RedirectHandler(ui.Prefix+"/", http.StatusFound))

	// Operations for clients and CI (behind the bearer token when one is
	// configured, like /metrics); /diff compares an upload with the served
	// tree.
	ops := r.With(s.requireAuth, s.withTimeout, s.limitBody)
	post(ops, "/validate", s.validate)
	post(ops, "/diff", s.diff)
	post(ops, "/resolve", s.resolve)
	post(ops, "/merge", s.merge)
	post(ops, "/policy/evaluate", s.policyEvaluate)

	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		refuse(w, r, &requestError{status: http.StatusNotFound, kind: "not-found", detail: "no route " + cut(r.URL.Path, 200) + "; GET /openapi.yaml lists them"})
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
		refuse(w, req, &requestError{status: http.StatusMethodNotAllowed, kind: "method-not-allowed",
			detail: cut(req.Method, 20) + " is not allowed on " + cut(req.URL.Path, 200) + "; use " + strings.Join(allowed, " or "),
			header: map[string]string{"Allow": strings.Join(allowed, ", ")}})
	})
	return root
}
