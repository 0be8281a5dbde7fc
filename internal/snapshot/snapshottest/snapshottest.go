// Package snapshottest builds stores in the states the server's pages and
// routes must describe, for their tests.
package snapshottest

import (
	"context"
	"testing"
	"time"

	"github.com/celine-eu/governanced/internal/memfs"
	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/testfs"
)

// Loaded returns a store of l's inputs whose first reload has activated a
// snapshot; anything else fails the test at once.
func Loaded(t testing.TB, l *snapshot.Loader) *snapshot.Store {
	t.Helper()
	store := snapshot.NewStore(l)
	if st := store.Reload(context.Background(), true); st.Outcome != snapshot.Activated {
		t.Fatalf("loading %v: %s: %v", l.Inputs.Trees, st.Outcome, st.Err)
	}
	return store
}

// Restored returns a store serving a state directory's revision: its tree
// on disk, one app a whose apps/a/governance.yaml no longer parses (line 1),
// is rejected, and the store serves instead good, the revision of the
// tree's last good files, restored from memory as if saved at savedAt.
func Restored(t testing.TB, savedAt time.Time) (store *snapshot.Store, good *snapshot.Snapshot) {
	t.Helper()
	dir := testfs.Tree(t, map[string]string{"apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.a: {expose: true}\n"})
	inputs := snapshot.Inputs{Trees: []string{dir}}
	good, err := (&snapshot.Loader{Inputs: inputs}).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var fsys memfs.FS
	for _, f := range good.InputTree().Files {
		b, err := good.ReadInput(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if err := fsys.Add(f.Path, b); err != nil {
			t.Fatal(err)
		}
	}
	testfs.Write(t, dir, map[string]string{"apps/a/governance.yaml": "sources: [\n"})
	store = snapshot.NewStore(&snapshot.Loader{Inputs: inputs})
	store.Reload(context.Background(), true)
	if _, err := store.Restore(context.Background(), good.InputTree().Loader(&fsys), snapshot.Persisted{Revision: good.Revision, SavedAt: savedAt}); err != nil {
		t.Fatal(err)
	}
	return store, good
}
