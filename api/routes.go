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

// routes is every route the server answers; openapi.yaml describes exactly
// these (a test walks both).
func (s *server) routes(reg *prometheus.Registry) *chi.Mux {
	r := chi.NewRouter()
	// HEAD answers like GET without a body (load balancers probe with it).
	// Every request is observed (logged, counted) by ServeHTTP, around this.
	r.Use(middleware.GetHead)

	// Health and operations.
	r.Get("/healthz", s.healthz)
	r.Get("/readyz", s.readyz)
	r.With(s.requireAuth).Method(http.MethodGet, "/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	r.Get("/status", s.status)
	r.Get("/openapi.yaml", s.openapi)
	r.Get("/schemas/{name}", s.schema)

	// The served tree: every answer may wait for the next revision (?wait).
	r.Group(func(r chi.Router) {
		r.Use(s.waitable)
		r.Get("/apps", s.listApps)
		r.Get("/apps/{app}", s.getApp)
		r.Get("/apps/{app}/datasets/{id}/rule", s.appDatasetRule)
		r.Get("/datasets", s.listDatasets)
		r.Get("/datasets/{id}/rule", s.datasetRule)
		r.Get("/datasets/{id}/exposure", s.datasetExposure)
		r.Get("/datasets/{id}/facet", s.datasetFacet)
		r.Get("/datasets/{id}/producers", s.datasetProducers)
		r.Get("/datasets/{id}/consumers", s.datasetConsumers)
		r.Get("/graph", s.graphDoc)
		r.Get("/graph/pipelines/{name}", s.graphPipeline)
		r.Get("/owners", s.listOwners)
		r.Get("/owners/{key}", s.getOwner)
		r.Get("/unresolved-owners", s.unresolvedOwners)
		r.Get("/report", s.report)
	})
	r.Get("/events", s.events)

	// The web page for people (api/ui): read-only HTML over the same
	// snapshot, open like the read routes above.
	r.Route(ui.Prefix, s.pages.Routes)

	// Operations for clients and CI (behind the bearer token when one is
	// configured, like /metrics); /diff compares an upload with the served
	// tree.
	r.With(s.requireAuth, s.withTimeout).Post("/validate", s.validate)
	r.With(s.requireAuth, s.withTimeout).Post("/diff", s.diff)
	r.With(s.requireAuth, s.limitOps).Post("/resolve", s.resolve)
	r.With(s.requireAuth, s.limitOps).Post("/merge", s.merge)
	r.With(s.requireAuth, s.limitOps).Post("/policy/evaluate", s.policyEvaluate)

	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, r, http.StatusNotFound, "not-found", "no route "+r.URL.Path+"; GET /openapi.yaml lists them")
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, req *http.Request) {
		var allowed []string
		path := req.URL.RawPath // what chi routed on
		if path == "" {
			path = req.URL.Path
		}
		for _, m := range []string{http.MethodGet, http.MethodPost} {
			if r.Match(chi.NewRouteContext(), m, path) {
				allowed = append(allowed, m)
			}
		}
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeProblem(w, req, http.StatusMethodNotAllowed, "method-not-allowed", req.Method+" is not allowed on "+req.URL.Path+"; use "+strings.Join(allowed, " or "))
	})
	return r
}
