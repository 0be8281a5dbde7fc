package api

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/treegen"
)

// generatedServer serves a generated tree of apps×sources.
func generatedServer(t testing.TB, apps, sources int) http.Handler {
	t.Helper()
	tree := treegen.Generate(treegen.Options{Apps: apps, Sources: sources, Seed: 3})
	dir := t.TempDir()
	if err := tree.Write(dir); err != nil {
		t.Fatal(err)
	}
	store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}, OverlayName: "deploy"}})
	h, _ := newServer(Deps{Store: store})
	return h
}

func gunzip(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCompress: what a client that accepts gzip gets, route by route. A
// large answer is gzipped, with a weak ETag that If-None-Match still
// matches, and decompresses to exactly the identity answer; a small one,
// an event stream, the reads of one dataset (routed without compress) and
// an answer its handler encoded itself pass as they are; every other
// answer varies on Accept-Encoding.
func TestCompress(t *testing.T) {
	h := generatedServer(t, 20, 2000)
	for _, tc := range []struct {
		target, accept string
		gzipped        bool
	}{
		{"/datasets?limit=1000", "", true},
		{"/datasets?include=rule", "application/x-ndjson", true},
		{"/graph", "", true},
		{"/openapi.yaml", "", true},
		{"/ui/datasets", "", true},
		{"/datasets?limit=1", "", false},
		{"/healthz", "", false},
		{"/report?format=sarif", "", false},
	} {
		t.Run(tc.target, func(t *testing.T) {
			plain := do(t, h, "GET", tc.target, nil, "Accept", tc.accept)
			got := do(t, h, "GET", tc.target, nil, "Accept", tc.accept, "Accept-Encoding", "br;q=1.0, gzip;q=0.8")
			if plain.status != got.status || plain.status >= 500 {
				t.Fatalf("status %d identity, %d gzip", plain.status, got.status)
			}
			body := got.body
			if enc := got.header.Get("Content-Encoding"); (enc == "gzip") != tc.gzipped {
				t.Fatalf("Content-Encoding %q, want gzipped %v (%d bytes plain)", enc, tc.gzipped, len(plain.body))
			}
			if tc.gzipped {
				body = gunzip(t, got.body)
				if len(got.body)*2 > len(body) {
					t.Errorf("gzipped to %d of %d bytes", len(got.body), len(body))
				}
			}
			if !bytes.Equal(body, plain.body) {
				t.Errorf("the gzipped answer is not the identity one")
			}
			if !strings.Contains(strings.Join(got.header.Values("Vary"), ","), "Accept-Encoding") && !strings.HasPrefix(tc.target, "/datasets/") {
				t.Errorf("Vary %q", got.header.Values("Vary"))
			}
			if etag := got.header.Get("ETag"); etag != "" {
				if tc.gzipped != strings.HasPrefix(etag, "W/") {
					t.Errorf("ETag %s of a gzipped %v answer", etag, tc.gzipped)
				}
				if r := do(t, h, "GET", tc.target, nil, "Accept", tc.accept, "Accept-Encoding", "gzip", "If-None-Match", etag); r.status != http.StatusNotModified {
					t.Errorf("If-None-Match %s: %d, want 304", etag, r.status)
				}
			}
		})
	}
	t.Run("the reads of one dataset", func(t *testing.T) {
		snapRule := do(t, h, "GET", "/datasets?limit=1", nil)
		id := string(bytes.SplitN(bytes.SplitN(snapRule.body, []byte(`"id":"`), 2)[1], []byte(`"`), 2)[0])
		for _, route := range []string{"/rule?explain=true", "/exposure", "/facet"} {
			for _, method := range []string{"GET", "HEAD"} {
				r := do(t, h, method, "/datasets/"+id+route, nil, "Accept-Encoding", "gzip")
				if r.status != 200 || r.header.Get("Content-Encoding") != "" || r.header.Get("Vary") != "" {
					t.Errorf("%s %s: %d, Content-Encoding %q, Vary %q: the reads of one dataset go without compress", method, route, r.status, r.header.Get("Content-Encoding"), r.header.Get("Vary"))
				}
			}
		}
	})
	t.Run("metrics encode themselves", func(t *testing.T) {
		r := do(t, h, "GET", "/metrics", nil, "Accept-Encoding", "gzip")
		if r.status != 200 || r.header.Get("Content-Encoding") != "gzip" || !bytes.Contains(gunzip(t, r.body), []byte("# HELP")) {
			t.Errorf("%d %q: want one gzip layer of the exposition format", r.status, r.header.Get("Content-Encoding"))
		}
	})
	t.Run("not asked", func(t *testing.T) {
		for _, ae := range []string{"", "identity", "gzip;q=0", "gzip; q=0.000, br", "deflate"} {
			if r := do(t, h, "GET", "/datasets?limit=1000", nil, "Accept-Encoding", ae); r.header.Get("Content-Encoding") != "" {
				t.Errorf("Accept-Encoding %q: %q", ae, r.header.Get("Content-Encoding"))
			}
		}
	})
	t.Run("HEAD", func(t *testing.T) {
		if r := do(t, h, "HEAD", "/datasets?limit=1000", nil, "Accept-Encoding", "gzip"); r.status != 200 || r.header.Get("Content-Encoding") != "" {
			t.Errorf("%d %q", r.status, r.header.Get("Content-Encoding"))
		}
	})
}

// TestCompressStreams: an event stream goes out as written, event by event,
// whatever the client accepts.
func TestCompressStreams(t *testing.T) {
	h, _ := testServer(t)
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp := openEvents(t, srv.URL, "Accept-Encoding", "gzip")
	defer resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "" {
		t.Fatalf("Content-Encoding %q on an event stream", resp.Header.Get("Content-Encoding"))
	}
	buf := make([]byte, 16)
	if _, err := io.ReadFull(resp.Body, buf); err != nil || !bytes.HasPrefix(buf, []byte("retry: ")) {
		t.Errorf("the first event: %q, %v", buf, err)
	}
}

func TestAcceptsGzip(t *testing.T) {
	for header, want := range map[string]bool{
		"":                   false,
		"gzip":               true,
		"GZIP":               true,
		"deflate, gzip;q=1":  true,
		"x-gzip":             true,
		"*":                  true,
		"gzip;q=0":           false,
		"gzip; q=0.0":        false,
		"gzip;q=0.001":       true,
		"identity, br":       false,
		"*;q=0, gzip;q=0.5":  false, // the first that names gzip or * decides
		"gzipped":            false,
		"br;q=1, gzip;q=0.5": true,
	} {
		if got := acceptsGzip(header); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", header, got, want)
		}
	}
}

// BenchmarkCompressListing is the NDJSON listing of 10 000 rules (about
// 15 MB) without compression and at two levels: what compressLevel trades.
func BenchmarkCompressListing(b *testing.B) {
	h := generatedServer(b, 10, 10_000)
	for _, bc := range []struct {
		name, encoding string
		level          int
	}{{"identity", "", 0}, {"gzip-speed", "gzip", gzip.BestSpeed}, {"gzip-default", "gzip", gzip.DefaultCompression}} {
		b.Run(bc.name, func(b *testing.B) {
			var size int
			for b.Loop() {
				if bc.level == gzip.DefaultCompression {
					// The level is a constant: the default's cost is its
					// compression of the identity body.
					r := do(b, h, "GET", "/datasets?include=rule", nil, "Accept", ndjsonType)
					var out bytes.Buffer
					zw := gzip.NewWriter(&out)
					_, _ = zw.Write(r.body)
					_ = zw.Close()
					size = out.Len()
					continue
				}
				r := do(b, h, "GET", "/datasets?include=rule", nil, "Accept", ndjsonType, "Accept-Encoding", bc.encoding)
				size = len(r.body)
			}
			b.ReportMetric(float64(size), "bytes/op")
		})
	}
}
