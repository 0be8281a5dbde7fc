package ui

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/treegen"
)

// generated is a store over a generated tree of 100 000 sources in 100 apps,
// built once for every benchmark of the package.
var generated = struct {
	once  sync.Once
	store *snapshot.Store
	tree  *treegen.Tree
	err   error
}{}

func generatedStore(b *testing.B) (*snapshot.Store, *treegen.Tree) {
	b.Helper()
	generated.once.Do(func() {
		const n = 100_000
		tree := treegen.Generate(treegen.Scale(n))
		dir := b.TempDir()
		if generated.err = tree.Write(dir); generated.err != nil {
			return
		}
		generated.tree = tree
		generated.store = snapshottest.Loaded(b, &snapshot.Loader{Inputs: snapshot.Inputs{
			Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}, OverlayName: "deploy",
		}})
	})
	if generated.err != nil {
		b.Fatal(generated.err)
	}
	return generated.store, generated.tree
}

// BenchmarkUIDatasets is GET /ui/datasets over 100 000 sources through the
// pages' router, rendered to the last byte: the first page, a name search
// by text and by glob, filters on several columns, an owner, and a page
// deep in the table. Each request scans every dataset to count what the
// filters keep; the target is under 50 ms a page.
func BenchmarkUIDatasets(b *testing.B) {
	store, tree := generatedStore(b)
	h := handler(store)
	snap := store.Current()
	owner := snap.OwnershipNames()[0]
	app := snap.Apps()[len(snap.Apps())/2].Name
	name := tree.ExactNames[len(tree.ExactNames)/2]
	for _, bc := range []struct{ name, query string }{
		{"first", ""},
		{"text", "q=" + url.QueryEscape(name[strings.LastIndexByte(name, '.')+1:])},
		{"glob", "q=" + url.QueryEscape("datasets.*_gold.*")},
		{"filters", "app=" + app + "&expose=true&access_level=internal&classification=green"},
		{"owner", "owner=" + url.QueryEscape(owner) + "&per=250"},
		{"deep", "page=1500"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			target := "/ui/datasets"
			if bc.query != "" {
				target += "?" + bc.query
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
			if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Showing ") {
				b.Fatalf("%s: %d\n%.2000s", target, rec.Code, rec.Body.String())
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
			}
		})
	}
}

// BenchmarkUIDataset is one dataset's page over the generated tree: a
// merge, its provenance and the facet, for a literal key and for a name
// only a glob matches.
func BenchmarkUIDataset(b *testing.B) {
	store, tree := generatedStore(b)
	h := handler(store)
	for _, bc := range []struct{ name, dataset string }{
		{"exact", tree.ExactNames[len(tree.ExactNames)/3]},
		{"glob", tree.GlobNames[len(tree.GlobNames)/3]},
	} {
		b.Run(bc.name, func(b *testing.B) {
			target := datasetURL(bc.dataset, "")
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d", target, rec.Code)
				}
			}
		})
	}
}
