package api

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testcorpus"
)

// discard is a ResponseWriter that keeps nothing, so a benchmark measures
// the handler rather than a recorder's buffer.
type discard struct {
	h      http.Header
	status int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(code int)        { d.status = code }

// realServer serves the 17 reference apps with dataset-api's owners.
func realServer(b testing.TB) http.Handler {
	b.Helper()
	ref := testcorpus.Path(b, "reference")
	store := snapshottest.Loaded(b, &snapshot.Loader{Inputs: snapshot.Inputs{
		Trees:  []string{filepath.Join(ref, "celine-pipelines")},
		Owners: []string{filepath.Join(ref, "dataset-api", "owners.yaml")},
	}})
	// The log is written as in production (one line a request, with a
	// timestamp), to nowhere.
	log := zerolog.New(io.Discard).Level(zerolog.InfoLevel).With().Timestamp().Logger()
	h, _ := newServer(Deps{Store: store, Log: log})
	return h
}

func benchGet(b *testing.B, h http.Handler, target string) {
	b.Helper()
	req := httptest.NewRequest("GET", target, nil)
	w := &discard{h: http.Header{}}
	h.ServeHTTP(w, req)
	if w.status != 0 && w.status != http.StatusOK {
		b.Fatalf("GET %s: %d", target, w.status)
	}
	benchServe(b, h, req)
}

// benchServe is the loop of a benchmark that serves req again and again,
// its answer written to nowhere.
func benchServe(b *testing.B, h http.Handler, req *http.Request) {
	b.Helper()
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		w.h = http.Header{}
		h.ServeHTTP(w, req)
	}
}

// BenchmarkRuleHandler is GET /datasets/{id}/rule for a literal key of the
// real tree: the whole stack (request id, logging, metrics, routing, global
// resolution, the body encoded once and kept).
func BenchmarkRuleHandler(b *testing.B) {
	benchGet(b, realServer(b), "/datasets/datasets.ds_dev_gold.meters_data_15m/rule")
}

func BenchmarkRuleHandlerExplain(b *testing.B) {
	benchGet(b, realServer(b), "/datasets/datasets.ds_dev_gold.meters_data_15m/rule?explain=true")
}

// BenchmarkRuleHandlerGlob resolves a name through a glob over several apps.
func BenchmarkRuleHandlerGlob(b *testing.B) {
	h, _ := testServer(b)
	benchGet(b, h, "/datasets/datasets.gold.weather_wind/rule")
}

func BenchmarkRuleHandlerNotModified(b *testing.B) {
	h := realServer(b)
	req := httptest.NewRequest("GET", "/datasets/datasets.ds_dev_gold.meters_data_15m/rule", nil)
	w := &discard{h: http.Header{}}
	h.ServeHTTP(w, req)
	req.Header.Set("If-None-Match", w.h.Get("ETag"))
	benchServe(b, h, req)
}

// BenchmarkRuleHandlerAcceptsGzip is BenchmarkRuleHandler for a client that
// accepts gzip, as Go's and most HTTP clients say they do: what routing the
// dataset reads through compress would cost them (ADR-0015).
func BenchmarkRuleHandlerAcceptsGzip(b *testing.B) {
	h := realServer(b)
	req := httptest.NewRequest("GET", "/datasets/datasets.ds_dev_gold.meters_data_15m/rule", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	benchServe(b, h, req)
}
