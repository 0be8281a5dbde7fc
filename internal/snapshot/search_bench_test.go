package snapshot

import (
	"context"
	"runtime"
	"testing"

	"github.com/celine-eu/governanced/internal/search"
)

// searchQueries are what people type, from a rare word to one every key
// holds, on the many-pipelines shape (treegen.GeneratePipelines).
var searchQueries = []struct{ name, text string }{
	{"one app", "app_0500"},
	{"title words", "meters readings silver"},
	{"owner name", "Owner 00042 Organisation"},
	{"app and tag", "app_0500 gold"},
	{"prefix", "forec"},
	{"every key", "datasets"},
	{"nothing", "zebra"},
}

// BenchmarkSearch is GET /datasets?q='s search at 100 000 sources in 1 000
// apps (48 MB of YAML): the ranked answer with its total, as a page of
// the table asks for it. hits is how many it found; index-B the bytes the
// apps' indexes hold, and index/yaml their ratio to the YAML's bytes.
func BenchmarkSearch(b *testing.B) {
	l, tree := genPipelines(b, 1000)
	s, err := l.Build(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	index := s.SearchBytes()
	for _, q := range searchQueries {
		b.Run(q.name, func(b *testing.B) {
			query, err := NewQuery(q.text)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var total int
			for b.Loop() {
				_, total = s.Page(Filter{Query: query}, 0, 50)
			}
			b.ReportMetric(float64(total), "hits")
			b.ReportMetric(float64(index), "index-B")
			b.ReportMetric(float64(index)/float64(tree.Bytes()), "index/yaml")
		})
	}
}

// BenchmarkSearchIndexBuild is the indexes' share of a build: every app's
// index made again from its served configuration, on one goroutine, at
// 100 000 sources in 1 000 apps. retained-B is the live heap they hold.
func BenchmarkSearchIndexBuild(b *testing.B) {
	l, _ := genPipelines(b, 1000)
	s, err := l.Build(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, a := range s.apps {
			search.NewIndex(a.Name, a.Config)
		}
	}
	b.StopTimer()
	var ix []*search.Index
	base := heapInUse()
	for _, a := range s.apps {
		ix = append(ix, search.NewIndex(a.Name, a.Config))
	}
	b.ReportMetric(float64(heapInUse()-base), "retained-B")
	runtime.KeepAlive(ix)
	runtime.KeepAlive(s)
}
