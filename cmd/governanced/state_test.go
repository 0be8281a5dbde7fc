package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/celine-eu/governanced/internal/snapshot"
)

// TestKeeperFinishesTheSaveUnderWay stops the keeper while a revision is
// offered: whichever of the offer and the stop run takes first, the
// revision is kept. A save that started on the server's context was cut
// short by the stop, and the final save then found nothing left to save.
func TestKeeperFinishesTheSaveUnderWay(t *testing.T) {
	tree := t.TempDir()
	if err := os.WriteFile(filepath.Join(tree, "governance.yaml"), []byte("defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	loader := &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{tree}}}
	store := snapshot.NewStore(loader)
	if st := store.Reload(context.Background(), false); st.Outcome != snapshot.Activated {
		t.Fatalf("reload: %+v", st)
	}
	snap := store.Current()
	// run picks at random between the offer and the stop when both are
	// ready; enough rounds take the offer first at least once.
	for i := range 32 {
		k := openKeeper(filepath.Join(t.TempDir(), "state"), loader.Inputs, zerolog.Nop())
		if k == nil {
			t.Fatal("the state directory was not opened")
		}
		k.offer(snap, nil, nil)
		stopped, stop := context.WithCancel(context.Background())
		stop()
		k.run(stopped, time.Minute)
		revs, _, err := k.dir.List(k.config)
		if err != nil {
			t.Fatal(err)
		}
		if len(revs) != 1 || revs[0].Revision != snap.Revision {
			t.Fatalf("round %d: kept %+v, want %s", i, revs, snap.Revision)
		}
	}
}
