package state

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// FuzzManifest: whatever a manifest holds, reading it never panics; one
// it accepts names only paths inside the tree and hashes, and loads as a
// whole or as a *CorruptError, never as a partial tree.
func FuzzManifest(f *testing.F) {
	dir := f.TempDir()
	d, err := Open(dir, 0)
	if err != nil {
		f.Fatal(err)
	}
	tr := tree{"apps/a/governance.yaml": "a", "owners.yaml": "o"}
	rev := tr.revision(t0)
	if _, err := d.Save(context.Background(), config, rev, tr.read); err != nil {
		f.Fatal(err)
	}
	name := manifestName(config, rev.Revision)
	good, err := os.ReadFile(filepath.Join(dir, revisionsDir, name))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"format":"governanced-state/1","files":[{"path":"../x","sha256":""}]}`))
	f.Add([]byte(`{"format":"governanced-state/1","config":"0123456789abcdef","dirs":["a","a/b"],"files":[]}`))
	f.Fuzz(func(t *testing.T, manifest []byte) {
		if err := os.WriteFile(filepath.Join(dir, revisionsDir, name), manifest, 0o640); err != nil {
			t.Fatal(err)
		}
		got, err := d.readManifest(name)
		if err != nil {
			return
		}
		for _, f := range got.Files {
			if !fs.ValidPath(f.Path) || f.Path == "." || len(f.SHA256) != 64 {
				t.Fatalf("accepted a file %q %q", f.Path, f.SHA256)
			}
		}
		fsys, err := d.Load(got)
		var ce *CorruptError
		if err != nil && !errors.As(err, &ce) {
			t.Fatalf("loading an accepted manifest: %v, want a *CorruptError", err)
		}
		if err == nil {
			for _, f := range got.Files {
				if _, err := fs.Stat(fsys, f.Path); err != nil {
					t.Fatalf("loaded without %s: %v", f.Path, err)
				}
			}
		}
	})
}
