package yaml11_test

import (
	"fmt"
	"testing"

	"github.com/celine-eu/governanced/internal/treegen"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// BenchmarkParseGenerated is the YAML read alone (go.yaml.in/yaml/v3 nodes to
// PyYAML-typed nodes) over generated trees shaped like the load script's:
// ≈470 bytes a source, 1 000 sources a file.
func BenchmarkParseGenerated(b *testing.B) {
	for _, n := range treegen.ScaleSizes {
		tree := treegen.Generate(treegen.Scale(n))
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(tree.Bytes()))
			b.ReportAllocs()
			for b.Loop() {
				for _, data := range tree.Files {
					if _, err := yaml11.Parse(data); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
