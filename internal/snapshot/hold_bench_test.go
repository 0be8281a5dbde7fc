package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// BenchmarkHeldReload is BenchmarkReload's one-file reload of the
// many-pipelines tree with apps isolated, one app broken and another
// edited at each step: the broken app is checked and held at its last good
// build, the edited one checked and built, and the tree served is the
// composite. Set beside BenchmarkReload/one-file/pipelines-1000-apps, it
// is what holding costs.
func BenchmarkHeldReload(b *testing.B) {
	const apps = 1000
	l, tree := genPipelines(b, apps)
	store := NewStoreWith(l, StoreOptions{Workers: 1, IsolateApps: true})
	if st := store.Reload(context.Background(), true); st.Outcome != Activated {
		b.Fatal(st.Err)
	}
	broken := filepath.Join(l.Inputs.Trees[0], filepath.FromSlash(fmt.Sprintf("apps/app_%04d/governance.yaml", apps/4)))
	file := fmt.Sprintf("apps/app_%04d/governance.yaml", apps/2)
	edited := filepath.Join(l.Inputs.Trees[0], filepath.FromSlash(file))
	orig := tree.Files[file]
	b.SetBytes(int64(tree.Bytes()))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if err := os.WriteFile(broken, fmt.Appendf(nil, "sources: [%d\n", i), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(edited, fmt.Appendf(slices.Clip(orig), "  datasets.appended.edit_%d:\n    title: appended\n", i), 0o644); err != nil {
			b.Fatal(err)
		}
		if st := store.Reload(context.Background(), false); st.Outcome != Held || st.UnitsBuilt != 2 || len(st.Held) != 1 {
			b.Fatalf("%v (%v): %d built, %d held; want held, 2 built, 1 held", st.Outcome, st.Err, st.UnitsBuilt, len(st.Held))
		}
	}
}
