package graph

import (
	"fmt"
	"testing"

	"github.com/celine-eu/governanced/internal/testfs"
	"github.com/celine-eu/governanced/internal/treegen"
)

// benchTree writes the generated tree the snapshot benchmarks build
// (BenchmarkBuildGenerated in internal/snapshot: 1 000 sources an app, a
// tenth globs, descriptions) with 20 depends_on entries an app, and loads its
// pipelines.
func benchTree(b *testing.B, n int) (*Discovery, []Pipeline) {
	b.Helper()
	opts := treegen.Scale(n)
	opts.DependsOn = 20
	dir := testfs.Generated(b, treegen.Generate(opts))
	d, err := Discover(dir, []string{"apps/*"})
	if err != nil {
		b.Fatal(err)
	}
	pipelines, _, err := Load(d)
	if err != nil {
		b.Fatal(err)
	}
	return d, pipelines
}

// BenchmarkBuildGenerated is Build over pipelines already loaded, as the
// server builds the graph from the configurations it holds: indexing every
// key and pattern, matching every dependency, tiers and findings.
func BenchmarkBuildGenerated(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			_, pipelines := benchTree(b, n)
			b.ReportAllocs()
			var g *Graph
			for b.Loop() {
				g = Build(pipelines, Options{})
			}
			b.ReportMetric(float64(len(g.Edges)), "edges")
		})
	}
}

// BenchmarkLoadAndBuildGenerated is what `governanced graph` does: discover,
// read and parse every file, build.
func BenchmarkLoadAndBuildGenerated(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			d, _ := benchTree(b, n)
			b.ReportAllocs()
			for b.Loop() {
				pipelines, _, err := Load(d)
				if err != nil {
					b.Fatal(err)
				}
				Build(pipelines, Options{})
			}
		})
	}
}

// BenchmarkMatch resolves every dependency of a generated tree against its
// keys, through the index (what Build does) and by comparing each
// dependency with each key (what the reference does), to show what the
// index saves.
func BenchmarkMatch(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		_, pipelines := benchTree(b, n)
		var keys, patterns []string
		for _, p := range pipelines {
			keys = append(keys, p.Produces...)
			for _, d := range p.DependsOn {
				patterns = append(patterns, d.Dataset)
			}
		}
		b.Run(fmt.Sprintf("index/%d", n), func(b *testing.B) {
			for b.Loop() {
				g := newGraph(pipelines)
				g.matchAll(g.deps, nil, 1)
			}
		})
		b.Run(fmt.Sprintf("pairs/%d", n), func(b *testing.B) {
			for b.Loop() {
				for _, q := range patterns {
					for _, k := range keys {
						matches(q, k)
					}
				}
			}
		})
	}
}
