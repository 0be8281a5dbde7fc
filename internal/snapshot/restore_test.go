package snapshot

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/celine-eu/governanced/internal/memfs"
	"github.com/celine-eu/governanced/internal/testfs"
)

// persistedOf lays out the input tree of snap in memory, as a state
// directory gives it back.
func persistedOf(t *testing.T, snap *Snapshot) (*Loader, Persisted) {
	t.Helper()
	tree := snap.InputTree()
	var fsys memfs.FS
	for _, d := range tree.Dirs {
		if err := fsys.AddDir(d); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range tree.Files {
		b, err := snap.ReadInput(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if err := fsys.Add(f.Path, b); err != nil {
			t.Fatal(err)
		}
	}
	return tree.Loader(&fsys), Persisted{Revision: snap.Revision, SavedAt: time.Unix(1700000000, 0)}
}

// TestRestoreServesThePersistedRevision: a store whose tree is rejected
// serves a persisted revision once restored, says so and still why the
// tree was rejected, starts its next reload from it, and lets it go once
// the tree passes.
func TestRestoreServesThePersistedRevision(t *testing.T) {
	for _, isolate := range []bool{false, true} {
		name := "all or nothing"
		if isolate {
			name = "apps isolated"
		}
		t.Run(name, func(t *testing.T) {
			dir := testfs.Tree(t, heldTree())
			inputs := Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}, OverlayName: "prod", OverlayDir: filepath.Join(dir, "deploy")}
			good, err := (&Loader{Inputs: inputs}).Build(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			from, p := persistedOf(t, good)
			gridLoad := ruleBody(t, good, "datasets.grid.load")

			// A new server on a tree where grid is broken and weather moved on.
			testfs.Write(t, dir, map[string]string{
				"apps/grid/governance.yaml":    "sources: [\n",
				"apps/weather/governance.yaml": strings.Replace(heldTree()["apps/weather/governance.yaml"], "access_level: internal", "access_level: restricted", 1),
			})
			store := NewStoreWith(&Loader{Inputs: inputs}, StoreOptions{})
			first := store.Reload(context.Background(), true)
			if first.Outcome != Rejected || store.Current() != nil {
				t.Fatalf("first load: %v (%v)", first.Outcome, first.Err)
			}
			wrong := p
			wrong.Revision = "sha256:0000"
			if _, err := store.Restore(context.Background(), from, wrong); err == nil || store.Current() != nil {
				t.Fatalf("a persisted revision that builds as another restored: %v", err)
			}
			st, err := store.Restore(context.Background(), from, p)
			if err != nil {
				t.Fatal(err)
			}
			if st.Outcome != Rejected || st.Served != good.Revision || st.Persisted == nil || *st.Persisted != p ||
				!strings.Contains(st.Err.Error(), "apps/grid/governance.yaml") || st.Seq != first.Seq+1 {
				t.Fatalf("restored: %+v; want the rejection still, serving the persisted revision", st)
			}
			if snap, _, persisted := store.Serving(); snap.Revision != good.Revision || persisted == nil {
				t.Fatal("the store does not serve the persisted revision as one")
			}
			if _, err := store.Current().ReadInput("owners.yaml"); err == nil {
				t.Error("a restored snapshot reads its inputs again: it must not keep the state directory's files")
			}
			same := store.Reload(context.Background(), false)
			if same.Outcome != Rejected || same.Persisted == nil || same.Served != good.Revision {
				t.Fatalf("the same tree again: %v serving %s (persisted %v)", same.Outcome, same.Served, same.Persisted)
			}
			if isolate {
				// A server isolating apps reloads once restored: grid is
				// held at its persisted build, weather moves on.
				store.opts.IsolateApps = true
				held := store.Reload(context.Background(), true)
				if held.Outcome != Held || len(held.Held) != 1 || held.Held[0].App != "grid" || held.Persisted != nil {
					t.Fatalf("reloaded with apps isolated: %v (%v), held %+v", held.Outcome, held.Err, held.Held)
				}
				if cur := store.Current(); ruleBody(t, cur, "datasets.grid.load") != gridLoad ||
					!strings.Contains(ruleBody(t, cur, "datasets.weather.hourly"), `"access_level":"restricted"`) {
					t.Error("grid is not at its persisted build, or weather did not move on")
				}
			}
			testfs.Write(t, dir, map[string]string{"apps/grid/governance.yaml": heldTree()["apps/grid/governance.yaml"]})
			fixed := store.Reload(context.Background(), false)
			if fixed.Outcome != Activated || fixed.Persisted != nil || fixed.Held != nil {
				t.Fatalf("the tree repaired: %v, persisted %v, held %v", fixed.Outcome, fixed.Persisted, fixed.Held)
			}
			if fixed.UnitsReused == 0 {
				t.Error("no unit of the restored build was reused")
			}
		})
	}
}
