package governance_test

import (
	"fmt"
	"sort"
	"testing"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/treegen"
)

func realFiles(tb testing.TB) map[string][]byte {
	tb.Helper()
	paths := testcorpus.ReferenceApps(tb)
	files := map[string][]byte{}
	for i, b := range testcorpus.ReadFiles(tb, paths) {
		files[paths[i]] = b
	}
	return files
}

// TestRealFilesParse keeps the 17 real files loading without warnings.
func TestRealFilesParse(t *testing.T) {
	total := 0
	for p, b := range realFiles(t) {
		cfg, err := governance.Parse(b, p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		for _, s := range cfg.Sources {
			if r, m := cfg.Resolve(s.Key); m.Kind != governance.MatchExact || r == nil {
				t.Errorf("%s: %s resolved by %v", p, s.Key, m.Kind)
			}
		}
		total += len(cfg.Sources)
	}
	if total != 174 {
		t.Errorf("the real files declare %d source keys, want 174", total)
	}
}

func BenchmarkParseRealFiles(b *testing.B) {
	files := realFiles(b)
	size := 0
	for _, f := range files {
		size += len(f)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for p, data := range files {
			if _, err := governance.Parse(data, p); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// oneApp puts n generated sources into a single document so that resolution
// faces every pattern at once.
func oneApp(b *testing.B, n int) (*governance.Config, *treegen.Tree) {
	tree := treegen.Generate(treegen.Options{Apps: 1, Sources: n, Seed: 1, OverlayShare: -1})
	cfg, err := governance.Parse(tree.Files["apps/app_000/governance.yaml"], "gen.yaml")
	if err != nil {
		b.Fatal(err)
	}
	return cfg, tree
}

// BenchmarkResolve is Config.Resolve on one document of n sources, for each
// kind of answer (a literal key, a glob, the defaults), three ways:
//
//   - kind/n cycles through every name of that kind in source order: the
//     working set grows with the tree, and the processor's prefetcher helps
//     with the keys' bytes, laid out in the same order;
//   - kind-random/n asks the same names in a random order: at 100 000 every
//     lookup lands on slots and keys no cache holds, as a server's uniform
//     mix over the whole tree does;
//   - kind-sample/n asks a fixed sample of 100 names spread over the tree, in
//     a random order: the same working set at every size, so what grows is
//     the lookup's own work as the patterns multiply, not the caches'
//     misses.
func BenchmarkResolve(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		cfg, tree := oneApp(b, n)
		kinds := []struct {
			name  string
			names []string
			want  governance.MatchKind
		}{
			{"exact", tree.ExactNames, governance.MatchExact},
			{"glob", tree.GlobNames, governance.MatchGlob},
			{"defaults", tree.MissNames, governance.MatchDefaults},
		}
		for _, k := range kinds {
			for _, name := range k.names {
				if _, m := cfg.Resolve(name); m.Kind != k.want {
					b.Fatalf("%s resolved by %v, want %v", name, m.Kind, k.want)
				}
			}
			treegen.Order(k.names, 1).Each(func(suffix string, names []string) {
				b.Run(fmt.Sprintf("%s%s/%d", k.name, suffix, n), func(b *testing.B) {
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						cfg.Resolve(names[i%len(names)])
						i++
					}
				})
			})
		}
		b.Run(fmt.Sprintf("lookup-exact/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				cfg.Lookup(tree.ExactNames[i%len(tree.ExactNames)])
				i++
			}
		})
	}
}

func BenchmarkMerge(b *testing.B) {
	files := realFiles(b)
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var cfgs []*governance.Config
	for _, p := range paths {
		cfg, err := governance.Parse(files[p], p)
		if err != nil {
			b.Fatal(err)
		}
		cfgs = append(cfgs, cfg)
	}
	b.Run("rules", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, cfg := range cfgs {
				for _, s := range cfg.Sources {
					governance.MergeRules(cfg.Defaults, s.Rule)
				}
			}
		}
	})
	b.Run("configs", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, cfg := range cfgs {
				governance.MergeConfigs(cfg, cfg)
			}
		}
	})
}
