package snapshot

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/diff"
	"github.com/celine-eu/governanced/internal/treegen"
)

// BenchmarkDiff is a diff of two generated trees that differ in one app's
// defaults (every dataset of app_000 changes):
//
//   - cold: what `governanced diff` does — check the base, check the head
//     reusing the base's units (only the changed app is checked again),
//     compare;
//   - cold-no-reuse: the same with the head checked afresh, for scale;
//   - served: what POST /diff does against the served tree — check the
//     upload (already in memory) beside the served snapshot, reusing its
//     units, and compare;
//   - one-app: checking the changed app alone, the floor the served diff
//     is measured against.
func BenchmarkDiff(b *testing.B) {
	for _, n := range treegen.ScaleSizes {
		tree := treegen.Generate(treegen.Scale(n))
		headFiles := editOne(b, tree.Files, "app_000")
		baseDir, headDir := b.TempDir(), b.TempDir()
		writeTree(b, baseDir, tree.Files)
		writeTree(b, headDir, headFiles)
		loader := func(dir string) *Loader {
			return &Loader{Inputs: Inputs{Trees: []string{"."}, Dir: dir, Owners: []string{"owners.yaml"}, OverlayName: "deploy"}}
		}
		want := len(tree.ExactNames)/max(1, n/1000) + len(tree.GlobNames)/max(1, n/1000)
		compare := func(b *testing.B, base, head diff.Tree) {
			rep, err := diff.Compare(context.Background(), base, head)
			if err != nil {
				b.Fatal(err)
			}
			if got := len(rep.Datasets); got < want/2 || got > 2*want {
				b.Fatalf("%d datasets changed, want about %d (app_000's)", got, want)
			}
			if len(rep.Findings.Added)+len(rep.Findings.Resolved) > 0 {
				b.Fatalf("the findings differ: %v added, %v resolved", rep.Findings.Added, rep.Findings.Resolved)
			}
		}
		b.Run(fmt.Sprintf("cold/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				base, err := loader(baseDir).Check(context.Background(), nil)
				if err != nil {
					b.Fatal(err)
				}
				head, err := loader(headDir).Check(context.Background(), base)
				if err != nil {
					b.Fatal(err)
				}
				if head.Built != 1 {
					b.Fatalf("the head checked %d units again, want 1", head.Built)
				}
				compare(b, base.Tree(""), head.Tree(""))
			}
		})
		b.Run(fmt.Sprintf("cold-no-reuse/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				base, err := loader(baseDir).Check(context.Background(), nil)
				if err != nil {
					b.Fatal(err)
				}
				head, err := loader(headDir).Check(context.Background(), nil)
				if err != nil {
					b.Fatal(err)
				}
				compare(b, base.Tree(""), head.Tree(""))
			}
		})
		b.Run(fmt.Sprintf("served/%d", n), func(b *testing.B) {
			store := NewStore(loader(baseDir))
			if rs := store.Reload(context.Background(), false); rs.Outcome != Activated {
				b.Fatalf("%v (%v)", rs.Outcome, rs.Err)
			}
			up := upload(b, headFiles) // the owners registry is inside the root
			b.ReportAllocs()
			for b.Loop() {
				served, head, err := store.CheckUpload(context.Background(), up, check.Budget{})
				if err != nil {
					b.Fatal(err)
				}
				if head.Built != 1 {
					b.Fatalf("the upload checked %d units again, want 1", head.Built)
				}
				compare(b, served.Tree(), head.Tree(""))
			}
		})
		b.Run(fmt.Sprintf("one-app/%d", n), func(b *testing.B) {
			l := &Loader{Inputs: Inputs{Trees: []string{filepath.Join("apps", "app_000")}, Dir: headDir, Owners: []string{"owners.yaml"}, OverlayName: "deploy"}}
			b.ReportAllocs()
			for b.Loop() {
				c, err := l.Check(context.Background(), nil)
				if err != nil || len(c.Apps) != 1 {
					b.Fatalf("%v: %d apps", err, len(c.Apps))
				}
			}
		})
	}
}
