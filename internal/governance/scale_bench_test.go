package governance_test

import (
	"fmt"
	"testing"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/treegen"
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
