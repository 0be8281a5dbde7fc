package snapshot

import (
	"fmt"
	"path/filepath"
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
	store := loadedStore(b, l, StoreOptions{IsolateApps: true})
	broken := filepath.Join(l.Inputs.Trees[0], filepath.FromSlash(fmt.Sprintf("apps/app_%04d/governance.yaml", apps/4)))
	file := fmt.Sprintf("apps/app_%04d/governance.yaml", apps/2)
	edited := filepath.Join(l.Inputs.Trees[0], filepath.FromSlash(file))
	orig := tree.Files[file]
	b.SetBytes(int64(tree.Bytes()))
	b.ReportAllocs()
	benchReloads(b, store, reloadWant{outcome: Held, built: 2, held: 1}, func(i int) {
		writeInput(b, broken, fmt.Appendf(nil, "sources: [%d\n", i))
		writeInput(b, edited, appendedSource(orig, i))
	})
}
