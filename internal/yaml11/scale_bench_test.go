package yaml11_test

import (
	"testing"

	"github.com/celine-eu/governanced/internal/testfs"
	"github.com/celine-eu/governanced/internal/treegen"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// BenchmarkParseGenerated is the YAML read alone (go.yaml.in/yaml/v3 nodes to
// PyYAML-typed nodes) over generated trees shaped like the load script's:
// ≈470 bytes a source, 1 000 sources a file.
func BenchmarkParseGenerated(b *testing.B) {
	testfs.EachScale(b, func(b *testing.B, _ int, tree *treegen.Tree) {
		for b.Loop() {
			for _, data := range tree.Files {
				if _, err := yaml11.Parse(data); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
