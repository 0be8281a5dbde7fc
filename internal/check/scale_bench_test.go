package check

import (
	"context"
	"fmt"
	"testing"

	"github.com/celine-eu/governanced/internal/treegen"
)

// BenchmarkCheckGenerated is the tree check a cold load runs, over generated
// trees shaped like the load script's (≈470 bytes a source, 1 000 sources an
// app, overlays beside 30% of the apps, an owners registry): read, schema
// validation, document rules, parse, merge, unit rules, owner resolution.
func BenchmarkCheckGenerated(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			tree := treegen.Generate(treegen.Options{Apps: max(1, n/1000), Sources: n, Seed: 1, Description: 225})
			dir := b.TempDir()
			if err := tree.Write(dir); err != nil {
				b.Fatal(err)
			}
			opts := Options{Paths: []string{"apps/*"}, Owners: []string{"owners.yaml"}, OverlayName: str("deploy"), Dir: dir}
			b.SetBytes(int64(tree.Bytes()))
			b.ReportAllocs()
			for b.Loop() {
				rep, err := Run(context.Background(), opts)
				if err != nil || !rep.OK || rep.Summary.Datasets != n {
					b.Fatalf("err %v, summary %+v", err, rep.Summary)
				}
			}
		})
	}
}
