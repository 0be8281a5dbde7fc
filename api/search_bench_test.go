package api

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/treegen"
)

// BenchmarkSearchEndToEnd is a search as a client sees it: an HTTP
// request over a socket to the whole server, GET /datasets?q= (the JSON
// list's first page, 1 000 items at most) and GET /ui/datasets?q= (the
// page rendered, 50 rows), read to the last byte. The trees are the
// many-pipelines shape (treegen.GeneratePipelines, gen_tree.py's): 10 000
// sources in 100 pipelines and 100 000 in 1 000. hits is how many the
// search found.
func BenchmarkSearchEndToEnd(b *testing.B) {
	for _, apps := range []int{100, 1000} {
		tree := treegen.GeneratePipelines(treegen.PipelinesOptions{Apps: apps, Sources: 100, Seed: 1})
		dir := b.TempDir()
		if err := tree.Write(dir); err != nil {
			b.Fatal(err)
		}
		store := snapshottest.Loaded(b, &snapshot.Loader{Inputs: snapshot.Inputs{
			Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}, OverlayName: tree.Options.OverlayName,
		}})
		h, _ := newServer(Deps{Store: store})
		srv := httptest.NewServer(h)
		client := srv.Client()
		for _, q := range []struct{ name, text string }{
			{"title-words", "meters readings silver"},
			{"owner-name", "Owner 00042 Organisation"},
			{"one-app", "app_0042"},
			{"prefix", "forec"},
			{"every-key", "datasets"},
		} {
			for _, route := range []string{"/datasets", "/ui/datasets"} {
				target := srv.URL + route + "?q=" + url.QueryEscape(q.text)
				_, total := store.Current().Page(snapshot.Filter{Query: mustQuery(b, q.text)}, 0, 0)
				b.Run(fmt.Sprintf("%d-sources/%s%s", apps*100, q.name, map[string]string{"/datasets": "", "/ui/datasets": "/page"}[route]), func(b *testing.B) {
					for b.Loop() {
						resp, err := client.Get(target)
						if err != nil {
							b.Fatal(err)
						}
						if _, err := io.Copy(io.Discard, resp.Body); err != nil {
							b.Fatal(err)
						}
						resp.Body.Close()
						if resp.StatusCode != http.StatusOK {
							b.Fatalf("%s: %d", target, resp.StatusCode)
						}
					}
					b.ReportMetric(float64(total), "hits")
				})
			}
		}
		srv.Close()
	}
}

func mustQuery(b *testing.B, text string) *snapshot.Query {
	q, err := snapshot.NewQuery(text)
	if err != nil {
		b.Fatal(err)
	}
	return q
}
