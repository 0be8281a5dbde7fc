package treegen_test

import (
	"fmt"

	"github.com/celine-eu/governanced/internal/treegen"
)

func ExampleGenerate() {
	tree := treegen.Generate(treegen.Options{Apps: 2, Sources: 100, Seed: 42, GlobShare: 0.1, OverlayShare: -1})
	fmt.Println(len(tree.Files), "files;", len(tree.ExactNames), "literal keys;", len(tree.GlobNames), "names only a glob matches")
	// Output: 3 files; 90 literal keys; 10 names only a glob matches
}
