package api

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/celine-eu/governanced/internal/graph"
	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testfs"
)

// TestReportRenderedOnce: concurrent requests for a revision's report in
// one format share one rendering (the same bytes in memory), rendered by
// the first of them: a report is megabytes on a large tree, and rendering
// it per request let a few clients take the memory of many.
func TestReportRenderedOnce(t *testing.T) {
	store := realStore(t)
	var cache answerCache
	snap := store.Current()
	for _, format := range []string{"sarif", "json"} {
		const n = 64
		bodies := make([][]byte, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				b, err := cache.of(store, snap).reportBody(format)
				if err != nil {
					t.Error(err)
				}
				bodies[i] = b
			})
		}
		close(start)
		wg.Wait()
		if len(bodies[0]) == 0 {
			t.Fatalf("%s: an empty report", format)
		}
		for i, b := range bodies {
			if &b[0] != &bodies[0][0] || len(b) != len(bodies[0]) {
				t.Fatalf("%s: request %d got a rendering of its own", format, i)
			}
		}
	}
	a, _ := cache.of(store, snap).reportBody("sarif")
	b, _ := cache.of(store, snap).reportBody("json")
	if string(a) == string(b) {
		t.Error("sarif and json share a rendering")
	}
}

// TestAnswersFollowTheServedRevision: a revision's bodies are kept while it
// is served and let go when another is; a request still answering from the
// revision before gets bodies of its own, which replace nothing.
func TestAnswersFollowTheServedRevision(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"apps/p/governance.yaml": "defaults: {}\ndepends_on: []\nsources:\n  ds.p: {}\n",
	})
	store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{dir}}})
	var cache answerCache
	first := store.Current()
	kept := cache.of(store, first)
	if cache.of(store, first) != kept || &kept.appsBody()[0] != &cache.of(store, first).appsBody()[0] {
		t.Fatal("the served revision's answers were not kept")
	}
	if err := os.WriteFile(filepath.Join(dir, "apps/p/governance.yaml"), []byte("defaults: {}\nsources:\n  ds.q: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st := store.Reload(context.Background(), false); st.Outcome != snapshot.Activated {
		t.Fatal(st.Err)
	}
	second := store.Current()
	now := cache.of(store, second)
	if now.snap != second || cache.of(store, second) != now {
		t.Error("the new revision's answers were not kept")
	}
	late := cache.of(store, first)
	if late == kept || late.snap != first {
		t.Error("a request answering from the revision before did not get answers of its own")
	}
	if cache.of(store, second) != now {
		t.Error("a request on the revision before replaced the served revision's answers")
	}
	if body := now.graphBody(false, graph.JSON); len(body) == 0 || string(body) == string(kept.graphBody(false, graph.JSON)) {
		t.Errorf("the graph of the new revision: %s", body)
	}
}
