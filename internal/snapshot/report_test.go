package snapshot

import (
	"context"
	"sync"
	"testing"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

// TestReportRenderedOnce: concurrent requests for a revision's report in
// one format share one rendering (the same bytes in memory), rendered by
// the first of them: a report is megabytes on a large tree, and rendering
// it per request let a few clients take the memory of many.
func TestReportRenderedOnce(t *testing.T) {
	store := NewStore(&Loader{Inputs: Inputs{Trees: []string{testcorpus.Path(t, "reference/celine-pipelines")}}})
	if st := store.Reload(context.Background(), true); st.Outcome != Activated {
		t.Fatal(st.Err)
	}
	snap := store.Current()
	for _, format := range []string{"sarif", "json"} {
		const n = 64
		bodies := make([][]byte, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				b, err := snap.ReportBody(format)
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
	a, _ := snap.ReportBody("sarif")
	b, _ := snap.ReportBody("json")
	if string(a) == string(b) {
		t.Error("sarif and json share a rendering")
	}
}
