package api

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/treegen"
)

// BenchmarkRuleHandlerGenerated is GET /datasets/{id}/rule through the whole
// stack over a generated tree of 100 000 sources, cycling through the load
// script's mix of names (nine literal keys to one name only a glob matches).
func BenchmarkRuleHandlerGenerated(b *testing.B) {
	const n = 100_000
	tree := treegen.Generate(treegen.Options{Apps: n / 1000, Sources: n, Seed: 1, Description: 225})
	dir := b.TempDir()
	if err := tree.Write(dir); err != nil {
		b.Fatal(err)
	}
	store := snapshot.NewStore(&snapshot.Loader{Inputs: snapshot.Inputs{
		Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}, OverlayName: "deploy",
	}})
	if st := store.Reload(true); st.Outcome != snapshot.Activated {
		b.Fatal(st.Err)
	}
	h, _ := newServer(Deps{Store: store})
	var reqs []*http.Request
	for i, name := range tree.ExactNames {
		if i%9 == 0 {
			reqs = append(reqs, httptest.NewRequest("GET", "/datasets/"+tree.GlobNames[(i/9)%len(tree.GlobNames)]+"/rule", nil))
		}
		reqs = append(reqs, httptest.NewRequest("GET", "/datasets/"+name+"/rule", nil))
	}
	w := &discard{h: http.Header{}}
	b.Run(fmt.Sprint(n), func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			w.h, w.status = http.Header{}, 0
			h.ServeHTTP(w, reqs[i%len(reqs)])
			if w.status != http.StatusOK {
				b.Fatalf("%s: %d", reqs[i%len(reqs)].URL, w.status)
			}
			i++
		}
	})
}
