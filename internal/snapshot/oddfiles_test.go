//go:build unix

package snapshot

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/celine-eu/governanced/internal/testfs"
)

// An odd file where a governance file belongs must never stop a reload,
// leak what lies outside the tree or change what is served: a reload ends
// (failed or rejected, the last good revision serving) and the next one
// after the repair serves the same revision as before.

// oddKinds are the things put where a governance file, an overlay or an
// app directory belongs.
var oddKinds = []struct {
	name string
	make func(t testing.TB, p, outside string) error
}{
	{"a FIFO", func(_ testing.TB, p, _ string) error { return syscall.Mkfifo(p, 0o644) }},
	{"a link to /dev/zero", func(_ testing.TB, p, _ string) error { return os.Symlink("/dev/zero", p) }},
	{"a dangling link", func(_ testing.TB, p, _ string) error { return os.Symlink("nowhere", p) }},
	{"a link loop", func(_ testing.TB, p, _ string) error { return os.Symlink(filepath.Base(p), p) }},
	{"a link out of the tree", func(_ testing.TB, p, outside string) error { return os.Symlink(outside, p) }},
	{"a relative link out of the tree", func(_ testing.TB, p, outside string) error {
		rel, err := filepath.Rel(filepath.Dir(p), outside)
		if err != nil {
			return err
		}
		return os.Symlink(rel, p)
	}},
	{"a directory", func(_ testing.TB, p, _ string) error { return os.MkdirAll(filepath.Join(p, "x"), 0o755) }},
	{"a 2 GB sparse file", func(_ testing.TB, p, _ string) error {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return err
		}
		return os.Truncate(p, 2<<30)
	}},
	{"an empty file", func(_ testing.TB, p, _ string) error { return os.WriteFile(p, nil, 0o644) }},
	{"garbage", func(_ testing.TB, p, _ string) error { return os.WriteFile(p, []byte("\x00\xff: [\n"), 0o644) }},
}

// oddSlots are where an odd thing is put, relative to the tree root.
var oddSlots = []string{"apps/a/governance.yaml", "apps/a/governance.a.yaml", "apps/b", "apps/c/governance.yaml", "apps"}

const oddSecret = "outside-secret-4b1d"

// oddTree is a good tree of two apps (one with an overlay), and a file
// outside it holding a secret.
func oddTree(t testing.TB) (tree, outside string) {
	dir := testfs.Tree(t, map[string]string{
		"tree/apps/a/governance.yaml":   "defaults: {row_filters: []}\nsources:\n  ds.a: {expose: true}\n",
		"tree/apps/a/governance.a.yaml": "defaults: {access_level: restricted}\n",
		"tree/apps/b/governance.yaml":   "defaults: {row_filters: []}\nsources:\n  ds.b: {expose: true}\n",
		"outside/secret":                oddSecret + "\n",
	})
	return filepath.Join(dir, "tree"), filepath.Join(dir, "outside/secret")
}

// clearSlot makes room for something new at slot under tree: whatever is
// there goes, and so does anything but a directory on the way to it (a
// FIFO there would block the removal, a link lead it out of the tree).
func clearSlot(tree, slot string) string {
	at := tree
	parts := strings.Split(slot, "/")
	for _, part := range parts[:len(parts)-1] {
		at = filepath.Join(at, part)
		if info, err := os.Lstat(at); err == nil && !info.IsDir() {
			os.Remove(at)
		}
	}
	p := filepath.Join(tree, slot)
	os.RemoveAll(p)
	os.MkdirAll(filepath.Dir(p), 0o755)
	return p
}

// reloadWithin reloads, failing the test when the reload does not end.
func reloadWithin(t testing.TB, s *Store) *ReloadStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan *ReloadStatus, 1)
	go func() { done <- s.Reload(ctx, false) }()
	select {
	case st := <-done:
		return st
	case <-time.After(2 * time.Minute):
		t.Fatal("the reload did not end")
		return nil
	}
}

// checkOdd asserts what a reload of a broken tree must hold: it ended, the
// last good snapshot serves, and nothing it says holds the secret.
func checkOdd(t testing.TB, s *Store, good *Snapshot, st *ReloadStatus) {
	t.Helper()
	if st.OK() && s.Current() != good {
		// An odd file may also be a valid change (an empty overlay):
		// then what is served must still hold nothing from outside.
		if strings.Contains(string(reportJSON(s.Current().Report())), oddSecret) {
			t.Fatalf("the served report holds the secret")
		}
	}
	if !st.OK() && s.Current() != good {
		t.Fatalf("outcome %v, but the served snapshot changed", st.Outcome)
	}
	if st.Err != nil && strings.Contains(st.Err.Error(), oddSecret) {
		t.Fatalf("the reload's error holds the secret: %v", st.Err)
	}
	if st.Rejected != nil && strings.Contains(string(reportJSON(st.Rejected.Report)), oddSecret) {
		t.Fatalf("the rejected report holds the secret")
	}
}

// TestReloadOddFiles puts each odd kind in each slot, of a served tree and
// of a tree loaded for the first time.
func TestReloadOddFiles(t *testing.T) {
	for _, kind := range oddKinds {
		for _, slot := range oddSlots {
			t.Run(kind.name+" as "+slot, func(t *testing.T) {
				tree, outside := oddTree(t)
				store := NewStore(&Loader{Inputs: Inputs{Trees: []string{tree}}})
				if st := reloadWithin(t, store); st.Outcome != Activated {
					t.Fatal(st.Err)
				}
				good := store.Current()
				p := clearSlot(tree, slot)
				if err := kind.make(t, p, outside); err != nil {
					t.Skip("cannot make it here:", err)
				}
				st := reloadWithin(t, store)
				checkOdd(t, store, good, st)

				// The first load of the same tree ends too, serving nothing.
				first := NewStore(&Loader{Inputs: Inputs{Trees: []string{tree}}})
				if st := reloadWithin(t, first); st.OK() != (first.Current() != nil) {
					t.Fatalf("first load: outcome %v, serving %v", st.Outcome, first.Current() != nil)
				}
			})
		}
	}
}

// FuzzReload breaks a served tree in random ways — a random kind of file
// in random places, a regular file of random bytes — and reloads: the
// reload ends, the last good snapshot keeps serving unless the change is a
// valid tree, nothing outside the tree reaches what the reload reports, and
// restoring the tree serves its revision again.
func FuzzReload(f *testing.F) {
	f.Add([]byte{0, 0})
	f.Add([]byte{4, 1, 7, 2})
	f.Add([]byte{9, 0, 'd', 'e', 'f', 'a', 'u', 'l', 't', 's', ':', ' ', '{', '}'})
	f.Add([]byte{1, 3, 5, 4, 8, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		tree, outside := oddTree(t)
		store := NewStore(&Loader{Inputs: Inputs{Trees: []string{tree}}})
		if st := reloadWithin(t, store); st.Outcome != Activated {
			t.Fatal(st.Err)
		}
		good := store.Current()
		// Each op is two bytes, a kind (the last one: a regular file of
		// the rest of the input) and a slot.
		for len(ops) >= 2 {
			k, slot := int(ops[0])%(len(oddKinds)+1), oddSlots[int(ops[1])%len(oddSlots)]
			ops = ops[2:]
			p := clearSlot(tree, slot)
			if k == len(oddKinds) {
				n := len(ops)
				if len(ops) >= 2 {
					n = int(binary.LittleEndian.Uint16(ops)) % (len(ops) + 1)
				}
				os.WriteFile(p, ops[:n], 0o644)
				ops = ops[n:]
				continue
			}
			oddKinds[k].make(t, p, outside)
		}
		st := reloadWithin(t, store)
		checkOdd(t, store, good, st)

		os.RemoveAll(tree)
		testfs.Write(t, tree, map[string]string{
			"apps/a/governance.yaml":   "defaults: {row_filters: []}\nsources:\n  ds.a: {expose: true}\n",
			"apps/a/governance.a.yaml": "defaults: {access_level: restricted}\n",
			"apps/b/governance.yaml":   "defaults: {row_filters: []}\nsources:\n  ds.b: {expose: true}\n",
		})
		if st := reloadWithin(t, store); !st.OK() || store.Current().Revision != good.Revision {
			t.Fatalf("restored: outcome %v (%v), revision %s, want %s", st.Outcome, st.Err, store.Current().Revision, good.Revision)
		}
	})
}
