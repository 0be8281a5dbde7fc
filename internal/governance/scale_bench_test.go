package governance_test

import (
	"fmt"
	"testing"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/treegen"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// BenchmarkParseGenerated parses a generated tree file by file, as a load does.
func BenchmarkParseGenerated(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		tree := treegen.Generate(treegen.Options{Apps: max(1, n/1000), Sources: n, Seed: 1})
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(tree.Bytes()))
			b.ReportAllocs()
			for b.Loop() {
				for p, data := range tree.Files {
					if p == "owners.yaml" {
						continue
					}
					if _, err := governance.Parse(data, p); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkMergeGenerated lays every app's deployer overlay over its base, as
// the check does for each unit: the sources cloned, overlay keys merged, the
// glob index rebuilt.
func BenchmarkMergeGenerated(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		apps := max(1, n/1000)
		tree := treegen.Generate(treegen.Options{Apps: apps, Sources: n, Seed: 1, OverlayShare: 1, Description: 225})
		type pair struct{ base, overlay *governance.Config }
		var pairs []pair
		for a := range apps {
			dir := fmt.Sprintf("apps/app_%03d/", a)
			base, err := governance.Parse(tree.Files[dir+"governance.yaml"], "base.yaml")
			if err != nil {
				b.Fatal(err)
			}
			doc, err := yaml11.Parse(tree.Files[dir+"governance.deploy.yaml"])
			if err != nil {
				b.Fatal(err)
			}
			ov, err := governance.ParseOverlayDocument(doc, "overlay.yaml")
			if err != nil {
				b.Fatal(err)
			}
			pairs = append(pairs, pair{base, ov})
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range pairs {
					governance.MergeConfigs(p.base, p.overlay)
				}
			}
		})
	}
}
