package check

import (
	"context"
	"testing"

	"github.com/celine-eu/governanced/internal/testfs"
	"github.com/celine-eu/governanced/internal/treegen"
)

// BenchmarkCheckGenerated is the tree check a cold load runs, over generated
// trees shaped like the load script's (≈470 bytes a source, 1 000 sources an
// app, overlays beside 30% of the apps, an owners registry): read, schema
// validation, document rules, parse, merge, unit rules, owner resolution.
func BenchmarkCheckGenerated(b *testing.B) {
	testfs.EachScale(b, func(b *testing.B, n int, tree *treegen.Tree) {
		dir := testfs.Generated(b, tree)
		opts := Options{Paths: []string{"apps/*"}, Owners: []string{"owners.yaml"}, OverlayName: str("deploy"), Dir: dir}
		for b.Loop() {
			rep, err := Run(context.Background(), opts)
			if err != nil || !rep.OK || rep.Summary.Datasets != n {
				b.Fatalf("err %v, summary %+v", err, rep.Summary)
			}
		}
	})
}
