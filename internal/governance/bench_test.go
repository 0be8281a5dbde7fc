package governance_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/treegen"
)

const realApps = "../../../shared/reference/celine-pipelines/apps"

func realFiles(tb testing.TB) map[string][]byte {
	tb.Helper()
	paths, _ := filepath.Glob(filepath.Join(realApps, "*", "governance.yaml"))
	if len(paths) != 17 {
		tb.Skipf("want the 17 reference files under %s, found %d", realApps, len(paths))
	}
	files := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		files[p] = b
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
			b.Run(fmt.Sprintf("%s/%d", k.name, n), func(b *testing.B) {
				names := k.names
				if _, m := cfg.Resolve(names[0]); m.Kind != k.want {
					b.Fatalf("%s resolved by %v, want %v", names[0], m.Kind, k.want)
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					cfg.Resolve(names[i%len(names)])
					i++
				}
			})
		}
		// The same names in a random order: every lookup lands on a cold
		// slot, as a server's mix of ids does; source order lets the
		// processor's prefetcher help with the keys' bytes.
		shuffled := slices.Clone(tree.ExactNames)
		rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		b.Run(fmt.Sprintf("exact-random/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				cfg.Resolve(shuffled[i%len(shuffled)])
				i++
			}
		})
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
