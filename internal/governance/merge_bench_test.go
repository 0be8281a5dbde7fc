package governance_test

import (
	"fmt"
	"testing"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/treegen"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// BenchmarkMergeRules is MergeRules as a tree serves a dataset: the four
// layers (base defaults, overlay defaults, base source, overlay source)
// merged in the two steps of governance-format.md §8, for every source of a
// generated tree, and a merge of two rules that state no nested field. The
// figures are per merged source; allocations per merge matter because a
// snapshot merges every source of the tree.
func BenchmarkMergeRules(b *testing.B) {
	const sources = 1_000
	tree := treegen.Generate(treegen.Options{Apps: 4, Sources: sources, Seed: 3, OverlayShare: 1})
	type unit struct {
		base, overlay *governance.Config
	}
	var units []unit
	for a := range 4 {
		dir := fmt.Sprintf("apps/app_%03d/", a)
		base, err := governance.Parse(tree.Files[dir+"governance.yaml"], dir+"governance.yaml")
		if err != nil {
			b.Fatal(err)
		}
		doc, err := yaml11.Parse(tree.Files[dir+"governance.deploy.yaml"])
		if err != nil {
			b.Fatal(err)
		}
		ov, err := governance.ParseOverlayDocument(doc, dir+"governance.deploy.yaml")
		if err != nil {
			b.Fatal(err)
		}
		units = append(units, unit{base, ov})
	}
	merged := make([]*governance.Config, len(units))
	for i, u := range units {
		merged[i] = governance.MergeConfigs(u.base, u.overlay)
	}
	b.Run("served", func(b *testing.B) {
		// The merged configuration is built once, as a snapshot does: this
		// is the defaults merged over every source.
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			for _, c := range merged {
				for _, s := range c.Sources {
					governance.MergeRules(c.Defaults, s.Rule)
					n++
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/merge")
	})
	b.Run("base-only", func(b *testing.B) {
		// No overlay: the defaults merged over each source of the base.
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			for _, u := range units {
				for _, s := range u.base.Sources {
					governance.MergeRules(u.base.Defaults, s.Rule)
					n++
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/merge")
	})
	flat := func(text, file string) *governance.Rule {
		node, err := yaml11.Parse([]byte(text))
		if err != nil {
			b.Fatal(err)
		}
		r, err := governance.ParseRule(node, file)
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	base := flat("license: CC-BY-4.0\naccess_level: internal\nclassification: green\nretention_days: 30\n", "base.yaml")
	over := flat("title: T\nexpose: true\naccess_level: restricted\nrow_filters: []\n", "over.yaml")
	b.Run("flat", func(b *testing.B) {
		// Two rules stating only top-level scalar fields: no tags, no
		// dcat, dataspace, ontology or extra keys.
		b.ReportAllocs()
		for b.Loop() {
			governance.MergeRules(base, over)
		}
	})
}
