package api

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testfs"
	"github.com/celine-eu/governanced/internal/treegen"
)

// BenchmarkRuleHandlerGenerated is GET /datasets/{id}/rule through the whole
// stack over a generated tree of 100 000 sources, cycling through the load
// script's mix of names (nine literal keys to one name only a glob matches)
// in each order of treegen.Order, with the rule parts kept within a budget
// or not at all.
func BenchmarkRuleHandlerGenerated(b *testing.B) {
	const n = 100_000
	tree := treegen.Generate(treegen.Scale(n))
	dir := testfs.Generated(b, tree)
	load := func() *snapshot.Store {
		return snapshottest.Loaded(b, &snapshot.Loader{Inputs: snapshot.Inputs{
			Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}, OverlayName: "deploy",
		}})
	}
	var names []string
	for i, name := range tree.ExactNames {
		if i%9 == 0 {
			names = append(names, tree.GlobNames[(i/9)%len(tree.GlobNames)])
		}
		names = append(names, name)
	}
	// Source order walks the snapshot's memory in the order it was built, so
	// its caches hide what a random name costs; -random is the load script's
	// draw, -sample a few names that stay cached.
	treegen.Order(names, 1).Each(func(suffix string, names []string) {
		// A server parses each request afresh, so the name it looks up is in
		// cache; requests built in advance would sit cold in memory and
		// charge their own misses to the lookup. The paths are packed in
		// the order they are asked for (which the processor prefetches) and
		// a few requests are reused.
		var packed strings.Builder
		at := make([]int, 1, len(names)+1) // path k is paths[at[k]:at[k+1]]
		for _, name := range names {
			packed.WriteString("/datasets/" + name + "/rule")
			at = append(at, packed.Len())
		}
		paths := packed.String()
		var reqs [16]*http.Request
		for i := range reqs {
			reqs[i] = httptest.NewRequest("GET", "/", nil)
		}
		w := &discard{h: http.Header{}}
		// The kept rule parts (ADR-0023, ADR-0025): the default budget,
		// which keeps every part of this tree; one that keeps a sixth of
		// them, so that most random reads make theirs again; and none, each
		// part written afresh as a listing writes it. The parts are kept
		// with the snapshot's datasets, so each has a store of its own.
		for _, kept := range []struct {
			name   string
			budget int64
		}{{"kept-128MiB", DefaultLimits.MaxKeptRuleBytes}, {"kept-16MiB", 16 << 20}, {"kept-none", NoKeptRuleParts}} {
			h, _ := newServer(Deps{Store: load(), Limits: Limits{MaxKeptRuleBytes: kept.budget}})
			// Every name read once first: what is measured is the steady
			// state, not the making of the parts.
			for k := range names {
				r := reqs[0]
				r.URL.Path = paths[at[k]:at[k+1]]
				w.h, w.status = http.Header{}, 0
				h.ServeHTTP(w, r)
			}
			b.Run(fmt.Sprintf("%d%s/%s", n, suffix, kept.name), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					k := i % len(names)
					r := reqs[i%len(reqs)]
					r.URL.Path = paths[at[k]:at[k+1]]
					w.h, w.status = http.Header{}, 0
					h.ServeHTTP(w, r)
					if w.status != http.StatusOK {
						b.Fatalf("%s: %d", r.URL.Path, w.status)
					}
					i++
				}
			})
		}
	})
}
