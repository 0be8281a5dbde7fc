package snapshot

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/testfs"
)

// TestTreeRebuildsTheRevision: a snapshot's input tree, its files read
// again (ReadInput) and laid out at their served names, builds the same
// revision and serves the same bodies, whatever the layout of the inputs
// on the disk: what a state directory keeps serves as the tree did.
func TestTreeRebuildsTheRevision(t *testing.T) {
	at := servedDisk(t)
	for _, tc := range []struct {
		name string
		in   Inputs
	}{
		{"one tree of apps, an overlay name", Inputs{Trees: []string{at("srv/tree")}, OverlayName: "prod"}},
		{"inputs inside the tree", Inputs{Trees: []string{at("srv/tree")}, Owners: []string{at("srv/tree/owners.yaml")},
			OverlayDir: at("srv/tree/deploy"), Placeholders: at("srv/tree/deploy/placeholders.yaml")}},
		{"inputs outside it, an empty overlay directory", Inputs{Trees: []string{at("srv/tree")},
			Owners:     []string{at("etc/governanced/owners.yaml"), at("etc/more/owners.yaml")},
			OverlayDir: at("etc/empty"), Placeholders: at("etc/placeholders.yaml"), Dataspace: true}},
		{"a tree of one governance.yaml, named", Inputs{Trees: []string{at("srv/single")}, TreeName: "weather"}},
		{"several trees", Inputs{Trees: []string{at("srv/tree"), at("srv/other"), at("srv/single")},
			Owners: []string{at("srv/tree/owners.yaml"), at("etc/more/owners.yaml")}}},
		{"a discovered file", Inputs{Base: at("srv/tree/apps/a/governance.yaml"), Owners: []string{at("etc/more/owners.yaml")}}},
		{"a discovered file, named", Inputs{Base: at("srv/single/governance.yaml"), TreeName: "meters", Strict: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := NewStore(&Loader{Inputs: tc.in})
			if st := store.Reload(context.Background(), true); st.Outcome != Activated {
				t.Fatalf("%v: %v", st.Outcome, st.Err)
			}
			snap := store.Current()
			tree := snap.InputTree()
			c := contents{}
			for _, f := range tree.Files {
				b, err := snap.ReadInput(f.Path)
				if err != nil {
					t.Fatal(err)
				}
				c[f.SHA256] = b
			}
			fresh, err := c.rebuild(t, tree)
			if err != nil {
				t.Fatalf("the tree rebuilt: %v", err)
			}
			if d := cmp.Diff(served(t, snap), served(t, fresh)); d != "" {
				t.Errorf("served (-the tree +its files laid out alone):\n%s", d)
			}
		})
	}
}

// TestReadInputRefusesChangedBytes: an input is read again only while it
// holds the bytes the snapshot was built from.
func TestReadInputRefusesChangedBytes(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"apps/a/governance.yaml": "defaults: {}\nsources: {}\n"})
	snap, err := (&Loader{Inputs: Inputs{Trees: []string{dir}}}).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snap.ReadInput("apps/a/governance.yaml"); err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, dir, map[string]string{"apps/a/governance.yaml": "defaults: {tags: [x]}\nsources: {}\n"})
	if _, err := snap.ReadInput("apps/a/governance.yaml"); !errors.Is(err, ErrInputsChanged) {
		t.Errorf("a changed file read again: %v, want ErrInputsChanged", err)
	}
	if _, err := snap.ReadInput("apps/b/governance.yaml"); !errors.Is(err, ErrNotReadable) {
		t.Errorf("a file not in the snapshot: %v, want ErrNotReadable", err)
	}
}
