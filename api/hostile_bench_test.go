package api

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/testmem"
	"github.com/celine-eu/governanced/internal/treegen"
)

// BenchmarkHostileRequests measures the requests that once took the
// process down, as docs/reliability.md reports them: each answer's status
// and size, the requests' peak heap and their peak charge to the working
// memory (go test -run '^$' -bench BenchmarkHostileRequests -benchtime 1x
// ./api/). The /ui/graph figure includes building the graph of the apps as
// served, once per revision, which the page reads by default.
func BenchmarkHostileRequests(b *testing.B) {
	_, st := testServer(b)
	// Each input is made when its sub-benchmark runs, so that what one
	// keeps alive does not weigh on another's heap.
	upload := sync.OnceValue(func() []byte {
		thousand := treegen.Generate(treegen.Options{Apps: 1000, Sources: 100_000, Seed: 1, Description: 225})
		files := map[string]string{}
		for k, v := range thousand.Files {
			files[k] = string(v)
		}
		return gzipOf(uploadOf(b, files))
	})
	resolve20 := func() []byte {
		return []byte(`{"document": ` + jsonString(sourcesDocument(800_000)) + `, "dataset": "s1"}`)
	}
	for _, bm := range []struct {
		name      string
		wide      bool // 400 apps each depending on datasets.*.*, not the test tree
		n         int  // requests at once
		method    string
		route, ct string
		body      func() []byte
	}{
		{"diff of 1000 apps x 100 sources", false, 1, "POST", "/diff", "application/gzip", upload},
		{"three diffs of 1000 apps at once", false, 3, "POST", "/diff", "application/gzip", upload},
		{"resolve of a 20 MB body", false, 1, "POST", "/resolve", "application/json", resolve20},
		{"four resolves of 20 MB at once", false, 4, "POST", "/resolve", "application/json", resolve20},
		{"graph of 1.6 million edges, 8 at once", true, 8, "GET", "/graph", "", nil},
		{"ui/graph of 1.6 million edges, 8 at once", true, 8, "GET", "/ui/graph", "", nil},
	} {
		b.Run(bm.name, func(b *testing.B) {
			var store *snapshot.Store = st
			if bm.wide {
				store = wideGraphStore(b, 400, 10)
			}
			var body []byte
			if bm.body != nil {
				body = bm.body()
			}
			h, s := newServer(Deps{Store: store, Limits: Limits{RequestTimeout: 10 * time.Minute}})
			for b.Loop() {
				statuses := make([]int, bm.n)
				var mu sync.Mutex
				var size int
				peak := testmem.PeakHeap(func() {
					var wg sync.WaitGroup
					for i := range bm.n {
						wg.Add(1)
						go func() {
							defer wg.Done()
							r := doLong(b, h, bm.method, bm.route, bytes.NewReader(body), "Content-Type", bm.ct)
							mu.Lock()
							statuses[i] = r.status
							size = max(size, len(r.body))
							mu.Unlock()
						}()
					}
					wg.Wait()
				})
				_, charged, _, _ := s.memory.state()
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(charged)/(1<<20), "charged-MB")
				b.ReportMetric(float64(size)/(1<<10), "answer-KB")
				b.Logf("%s: statuses %v", bm.name, statuses)
			}
		})
	}
}
