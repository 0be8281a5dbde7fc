package snapshot

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	"github.com/celine-eu/governanced/internal/testfs"
	"github.com/celine-eu/governanced/internal/treegen"
)

// genTree writes the scale benchmarks' generated tree of n sources
// (treegen.Scale) and returns the loader serving it.
func genTree(b *testing.B, n int) (*Loader, *treegen.Tree) {
	b.Helper()
	return genTreeWith(b, treegen.Scale(n))
}

// genTreeWith is genTree for any generator options.
func genTreeWith(b *testing.B, opts treegen.Options) (*Loader, *treegen.Tree) {
	b.Helper()
	tree := treegen.Generate(opts)
	return loaderOf(b, tree, "deploy"), tree
}

// loaderOf writes tree under a temporary directory and returns the loader
// serving it, with its owners registry and its overlays named overlay.
func loaderOf(b *testing.B, tree *treegen.Tree, overlay string) *Loader {
	b.Helper()
	dir := testfs.Generated(b, tree)
	return &Loader{Inputs: Inputs{
		Trees:       []string{dir},
		Owners:      []string{filepath.Join(dir, "owners.yaml")},
		OverlayName: overlay,
	}}
}

// pipelineApps are the sizes of the many-pipelines benchmarks: apps of 100
// sources each (treegen.GeneratePipelines), 10 000 and 100 000 sources.
var pipelineApps = []int{100, 1000}

// genPipelines writes a many-pipelines tree of apps apps and returns the
// loader serving it.
func genPipelines(b *testing.B, apps int) (*Loader, *treegen.Tree) {
	b.Helper()
	tree := treegen.GeneratePipelines(treegen.PipelinesOptions{Apps: apps, Sources: 100, Seed: 1})
	return loaderOf(b, tree, tree.Options.OverlayName), tree
}

// BenchmarkBuildPipelines is BenchmarkBuildGenerated for a platform's
// many small pipelines: globs of every kind and depends_on entries on other
// apps' schemas, so the dependency graph and the globs' index are most of
// what differs from the few-large-apps shape.
func BenchmarkBuildPipelines(b *testing.B) {
	for _, apps := range pipelineApps {
		b.Run(fmt.Sprintf("%d-apps", apps), func(b *testing.B) {
			l, tree := genPipelines(b, apps)
			s := benchBuilds(b, l, tree)
			b.StopTimer()
			b.ReportMetric(float64(s.GraphCounts().Edges), "edges")
			s = nil
			reportBuildRetained(b, l, tree)
		})
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// benchBuilds times builds of l, the loader of tree, and returns the last
// build: each is kept until the next is done, as a server keeps the
// revision it serves while it builds the next.
func benchBuilds(b *testing.B, l *Loader, tree *treegen.Tree) *Snapshot {
	b.Helper()
	b.SetBytes(int64(tree.Bytes()))
	b.ReportAllocs()
	var s *Snapshot
	for b.Loop() {
		var err error
		if s, err = l.Build(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// reportRetained reports the live heap grown since base while keep is
// alive (retained-B), and its ratio to the YAML bytes of tree
// (retained/yaml; the target is at most 5).
func reportRetained(b *testing.B, base uint64, keep any, tree *treegen.Tree) {
	retained := heapInUse() - base
	sample := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
	metrics.Read(sample)
	runtime.KeepAlive(keep)
	b.ReportMetric(float64(sample[0].Value.Uint64()), "scan-heap-B")
	b.ReportMetric(float64(retained), "retained-B")
	b.ReportMetric(float64(retained)/float64(tree.Bytes()), "retained/yaml")
}

// reportBuildRetained builds l once more and reports what the built
// snapshot retains (reportRetained).
func reportBuildRetained(b *testing.B, l *Loader, tree *treegen.Tree) {
	base := heapInUse()
	s, _ := l.Build(context.Background())
	reportRetained(b, base, s, tree)
}

// loadedStore is a store over l on one thread, as a serving process
// reloads, with its first reload done.
func loadedStore(b *testing.B, l *Loader, opts StoreOptions) *Store {
	b.Helper()
	opts.Workers = 1
	store := NewStoreWith(l, opts)
	if st := store.Reload(context.Background(), true); st.Outcome != Activated {
		b.Fatal(st.Err)
	}
	return store
}

// reloadWant is what each of a benchmark's reloads must report.
type reloadWant struct {
	outcome     Outcome
	built, held int
	// resolved, when not 0, is the units whose owners are resolved again
	// without a check (an owners edit's).
	resolved int
}

// benchReloads times store's reloads, each after edit(i) changed the
// inputs for step i (from 1), and fails unless each reports want.
func benchReloads(b *testing.B, store *Store, want reloadWant, edit func(i int)) {
	b.Helper()
	i := 0
	for b.Loop() {
		i++
		edit(i)
		if st := store.Reload(context.Background(), false); st.Outcome != want.outcome || st.UnitsBuilt != want.built || len(st.Held) != want.held {
			b.Fatalf("%v (%v): %d built, %d held; want %v, %d built, %d held", st.Outcome, st.Err, st.UnitsBuilt, len(st.Held), want.outcome, want.built, want.held)
		} else if want.resolved != 0 && st.UnitsResolved != want.resolved {
			b.Fatalf("%d units resolved again, want %d: none checked again", st.UnitsResolved, want.resolved)
		}
	}
}

// writeInput writes data to the input file p, as an edit does.
func writeInput(b *testing.B, p string, data []byte) {
	if err := os.WriteFile(p, data, 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkBuildGenerated is a cold load of a generated tree: fingerprint,
// check (read, schema-validate, parse, merge, resolve owners) and index (rule
// bodies are encoded when asked for, not here). retained-B is the live heap
// the snapshot holds once built, and retained/yaml its ratio to the YAML
// bytes (the target is at most 5).
func BenchmarkBuildGenerated(b *testing.B) {
	testfs.EachScale(b, func(b *testing.B, _ int, tree *treegen.Tree) {
		l := loaderOf(b, tree, "deploy")
		for b.Loop() {
			// Nothing keeps the built revision: it is garbage before the next
			// build, as in a reload's steady state.
			if _, err := l.Build(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		reportBuildRetained(b, l, tree)
	})
}

// BenchmarkBuildGeneratedGraph is BenchmarkBuildGenerated over the same
// tree with 20 depends_on entries an app (literal names, schema globs,
// names only a glob key covers, a tenth external), and the dependency
// graph's share of the build: graph-ns is the graph's own step of the
// snapshot build (graph.Build over every app's pipeline and the counts
// /status reports; each unit's pipeline is read from its parsed base
// while the unit is built, in the parallel part, and is not in it), and
// graph-% is that step against the whole build.
func BenchmarkBuildGeneratedGraph(b *testing.B) {
	for _, n := range treegen.ScaleSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			opts := treegen.Scale(n)
			opts.DependsOn = 20
			l, tree := genTreeWith(b, opts)
			s := benchBuilds(b, l, tree)
			build := b.Elapsed() / time.Duration(b.N)
			b.StopTimer()
			nodes := slices.Clone(s.Graph().Pipelines)
			const rounds = 5
			start := time.Now()
			var g *servedGraph
			for range rounds {
				g = newServedGraph(graphInputs{nodes: nodes}, false)
			}
			graphTime := time.Since(start) / rounds
			b.ReportMetric(float64(graphTime.Nanoseconds()), "graph-ns")
			b.ReportMetric(100*float64(graphTime)/float64(build), "graph-%")
			b.ReportMetric(float64(g.counts.Edges), "edges")
		})
	}
}

// BenchmarkGlobalResolve is Snapshot.Resolve, the lookup behind GET
// /datasets/{id}/rule, over every app of a generated tree: literal keys, names
// only a glob matches, and names nothing matches (every app's glob index is
// asked), each in the three orders of treegen.Order (source order, random,
// a fixed sample).
func BenchmarkGlobalResolve(b *testing.B) {
	for _, n := range treegen.ScaleSizes {
		l, tree := genTree(b, n)
		s, err := l.Build(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		for _, k := range []struct {
			name  string
			names []string
			miss  bool
		}{{"exact", tree.ExactNames, false}, {"glob", tree.GlobNames, false}, {"miss", tree.MissNames, true}} {
			treegen.Order(k.names, 1).Each(func(suffix string, names []string) {
				b.Run(fmt.Sprintf("%s%s/%d", k.name, suffix, n), func(b *testing.B) {
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						_, err := s.Resolve(names[i%len(names)])
						if (err != nil) != k.miss {
							b.Fatal(err)
						}
						i++
					}
				})
			})
		}
	}
}

// BenchmarkResolveIn is resolution inside one app (the library's
// semantics, ResolveIn) of names only a glob matches, each asked of the
// app whose glob the tree-wide resolution picks, on the few-large-apps
// tree and on the many-pipelines one.
func BenchmarkResolveIn(b *testing.B) {
	for _, c := range []struct {
		shape string
		gen   func() (*Loader, *treegen.Tree)
	}{
		{"few-apps/100000", func() (*Loader, *treegen.Tree) { return genTree(b, 100_000) }},
		{"pipelines/1000-apps", func() (*Loader, *treegen.Tree) { return genPipelines(b, 1000) }},
	} {
		l, tree := c.gen()
		s, err := l.Build(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		var apps, names []string
		for _, name := range tree.GlobNames {
			if d, err := s.Resolve(name); err == nil {
				apps, names = append(apps, d.App.Name), append(names, name)
			}
		}
		if len(names) == 0 {
			b.Fatal("no glob name resolves to one app")
		}
		b.Run(c.shape, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if d, _ := s.ResolveIn(apps[i%len(names)], names[i%len(names)]); !d.Pattern {
					b.Fatal("resolved to no glob")
				}
				i++
			}
		})
	}
}

// BenchmarkReload is a store's reload on one thread, as a serving process
// runs it, after one app's file changed (one-file: read every input, hash the
// changed one, check and build its unit, reuse the others, index) and after
// every owner entry edited (owners: every app names an owner, so every
// unit's ownership names are resolved again and its app built again, the
// worst an owners change can do; no unit is checked again, ADR-0016).
// retained-B is the live heap of the store afterwards.
func BenchmarkReload(b *testing.B) {
	b.Run("one-file/10000-apps", func(b *testing.B) {
		// Many small apps: the reload's cost is what it does per app.
		l, tree := genTreeWith(b, treegen.Options{Apps: 10_000, Sources: 100_000, Seed: 1, Description: 225})
		store := loadedStore(b, l, StoreOptions{})
		file := "apps/app_0000/governance.yaml"
		if _, ok := tree.Files[file]; !ok {
			file = "apps/app_000/governance.yaml"
		}
		p := filepath.Join(l.Inputs.Trees[0], filepath.FromSlash(file))
		orig := tree.Files[file]
		b.SetBytes(int64(tree.Bytes()))
		benchReloads(b, store, reloadWant{outcome: Activated, built: 1}, func(i int) {
			writeInput(b, p, fmt.Appendf(slices.Clip(orig), "# edit %d\n", i))
		})
	})
	for _, apps := range pipelineApps {
		edits := []struct {
			kind, file string
			want       reloadWant
			edit       func(orig []byte, i int) []byte
		}{
			// A literal source appended to one app, whose depends_on
			// entries and keys are all the graph matches again.
			{"one-file", fmt.Sprintf("apps/app_%04d/governance.yaml", apps/2), reloadWant{outcome: Activated, built: 1}, appendedSource},
			// Every owner's display name edited, as the load script's
			// full reloads do: every unit's names resolved again, none
			// checked again.
			{"owners", "owners.yaml", reloadWant{outcome: Activated, built: apps, resolved: apps}, func(orig []byte, i int) []byte {
				if i%2 == 1 {
					return bytes.ReplaceAll(orig, []byte(" Organisation"), []byte(" Organization"))
				}
				return orig
			}},
		}
		for _, e := range edits {
			b.Run(fmt.Sprintf("%s/pipelines-%d-apps", e.kind, apps), func(b *testing.B) {
				// A memory profile (-memprofile) samples the reloads, not
				// the tree's generation and first build.
				rate := runtime.MemProfileRate
				runtime.MemProfileRate = 0
				l, tree := genPipelines(b, apps)
				base := heapInUse()
				store := loadedStore(b, l, StoreOptions{})
				runtime.MemProfileRate = rate
				p := filepath.Join(l.Inputs.Trees[0], filepath.FromSlash(e.file))
				orig := tree.Files[e.file]
				b.SetBytes(int64(tree.Bytes()))
				b.ReportAllocs()
				benchReloads(b, store, e.want, func(i int) {
					writeInput(b, p, e.edit(orig, i))
				})
				b.StopTimer()
				reportRetained(b, base, store, tree)
			})
		}
	}
	for _, kind := range []string{"one-file", "owners"} {
		for _, n := range treegen.ScaleSizes {
			b.Run(fmt.Sprintf("%s/%d", kind, n), func(b *testing.B) {
				l, tree := genTree(b, n)
				base := heapInUse()
				store := loadedStore(b, l, StoreOptions{})
				file, want := "apps/app_000/governance.yaml", reloadWant{outcome: Activated, built: 1}
				if kind == "owners" {
					// Every unit built again, its owners resolved again:
					// none checked again.
					file, want.built = "owners.yaml", max(1, n/1000)
					want.resolved = want.built
				}
				p := filepath.Join(l.Inputs.Trees[0], filepath.FromSlash(file))
				orig := tree.Files[file]
				b.SetBytes(int64(tree.Bytes()))
				b.ReportAllocs()
				benchReloads(b, store, want, func(i int) {
					edited := fmt.Appendf(slices.Clip(orig), "# edit %d\n", i)
					if kind == "owners" {
						// Each owner's name, edited one way and back.
						edited = orig
						if i%2 == 1 {
							edited = bytes.ReplaceAll(orig, []byte("name: Organisation "), []byte("name: Organization "))
						}
					}
					writeInput(b, p, edited)
				})
				b.StopTimer()
				reportRetained(b, base, store, tree)
			})
		}
	}
}

// appendedSource is an app's governance file orig with a literal source
// appended, named for step i.
func appendedSource(orig []byte, i int) []byte {
	return fmt.Appendf(slices.Clip(orig), "  datasets.appended.edit_%d:\n    title: appended\n", i)
}

// BenchmarkCollectGenerated is one full collection while a built snapshot is
// the live heap: what every cycle of the collector costs a server holding
// it, in processor time its requests do not get. objects is the count of
// live heap objects, which the collector marks one by one.
func BenchmarkCollectGenerated(b *testing.B) {
	for _, n := range treegen.ScaleSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			l, _ := genTree(b, n)
			s, err := l.Build(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC() // the build's garbage, so that every timed cycle marks the same heap
			for b.Loop() {
				runtime.GC()
			}
			b.StopTimer()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			runtime.KeepAlive(s)
			b.ReportMetric(float64(m.HeapObjects), "objects")
			b.ReportMetric(float64(m.HeapAlloc), "heap-B")
		})
	}
}
