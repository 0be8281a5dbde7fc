package snapshot

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/testfs"
)

// secret is what a file outside the tree holds: none of it may reach a
// finding, a problem or an error.
const secret = "s3cr3t-t0ken-2f6c1e9a"

// containTree is a served tree with one app, a secret beside it (outside
// the tree) and an overlay directory.
func containTree(t *testing.T) (dir, tree, overlays string) {
	t.Helper()
	dir = testfs.Tree(t, map[string]string{
		"tree/apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.a: {expose: true}\n",
		"tree/common/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.s: {expose: true}\n",
		"overlays/governance.a.yaml":  "defaults: {access_level: restricted}\n",
		"outside/secret":              secret + "\n",
		"outside/app/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.out: {expose: true}\n",
		"outside/governance.a.yaml":   "defaults: {access_level: open}\n",
	})
	return dir, filepath.Join(dir, "tree"), filepath.Join(dir, "overlays")
}

func link(t *testing.T, target, at string) {
	t.Helper()
	os.RemoveAll(at)
	if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, at); err != nil {
		t.Skip("no symbolic links here:", err)
	}
}

// linkAt is a symbolic link at at (relative to the containTree directory)
// to to: a name in that directory, made absolute, unless it begins with
// "../" or "/", when the link says it as written.
type linkAt struct{ at, to string }

func (l linkAt) make(t *testing.T, dir string) {
	t.Helper()
	to := l.to
	if !strings.HasPrefix(to, "../") && !strings.HasPrefix(to, "/") {
		to = filepath.Join(dir, to)
	}
	link(t, to, filepath.Join(dir, l.at))
}

// TestLinksOutOfTheTree: a file or directory under a tree root or the
// overlay directory that a symbolic link leads out of fails the reload with
// an *OutsideError naming it; the last good snapshot keeps serving, and
// nothing of what the link leads to is read. Links that stay inside are
// followed, relative or absolute, and the root itself may be a link.
func TestLinksOutOfTheTree(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) // before the links, if any
		links []linkAt
		path  string // the display path refused, relative to dir; "" when the reload activates
		allow bool   // with AllowOutsideLinks
	}{
		{name: "governance.yaml to a secret", path: "tree/apps/leak/governance.yaml",
			links: []linkAt{{"tree/apps/leak/governance.yaml", "outside/secret"}}},
		{name: "a relative link climbing out", path: "tree/apps/leak/governance.yaml",
			links: []linkAt{{"tree/apps/leak/governance.yaml", "../../../outside/secret"}}},
		{name: "a link to /dev/zero", path: "tree/apps/leak/governance.yaml",
			links: []linkAt{{"tree/apps/leak/governance.yaml", "/dev/zero"}}},
		{name: "an app directory", path: "tree/apps/leak",
			links: []linkAt{{"tree/apps/leak", "outside/app"}}},
		{name: "the apps directory", path: "tree/apps",
			setup: func(t *testing.T, dir string) {
				os.MkdirAll(filepath.Join(dir, "outside/apps/a"), 0o755)
				os.Rename(filepath.Join(dir, "outside/app/governance.yaml"), filepath.Join(dir, "outside/apps/a/governance.yaml"))
			},
			links: []linkAt{{"tree/apps", "outside/apps"}}},
		{name: "an overlay beside its base", path: "tree/apps/a/governance.a.yaml",
			links: []linkAt{{"tree/apps/a/governance.a.yaml", "outside/governance.a.yaml"}}},
		{name: "an overlay in the overlay directory", path: "overlays/governance.b.yaml",
			links: []linkAt{{"overlays/governance.b.yaml", "outside/governance.a.yaml"}}},
		{name: "an overlay directory entry into the tree is out of the overlay directory", path: "overlays/governance.c.yaml",
			links: []linkAt{{"overlays/governance.c.yaml", "tree/apps/a/governance.yaml"}}},
		{name: "through a link inside to a link out", path: "tree/apps/leak/governance.yaml",
			links: []linkAt{{"tree/door", "outside"}, {"tree/apps/leak/governance.yaml", "../../door/secret"}}},
		{name: "a relative link inside",
			links: []linkAt{{"tree/apps/s/governance.yaml", "../../common/governance.yaml"}}},
		{name: "an absolute link inside",
			links: []linkAt{{"tree/apps/s", "tree/common"}}},
		{name: "allowed out", allow: true,
			links: []linkAt{{"tree/apps/leak", "outside/app"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, tree, overlays := containTree(t)
			in := Inputs{Trees: []string{tree}, OverlayDir: overlays, AllowOutsideLinks: tt.allow}
			store := NewStore(&Loader{Inputs: in})
			if st := store.Reload(context.Background(), true); st.Outcome != Activated {
				t.Fatal(st.Err)
			}
			good := store.Current()
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			for _, l := range tt.links {
				l.make(t, dir)
			}
			st := store.Reload(context.Background(), false)
			if tt.path == "" {
				if st.Outcome != Activated {
					t.Fatalf("outcome %v: %v", st.Outcome, st.Err)
				}
				return
			}
			if st.Outcome != Failed || store.Current() != good {
				t.Fatalf("outcome %v (%v), want failed with the last good snapshot serving", st.Outcome, st.Err)
			}
			// Named as served: the tree's files from its root, the
			// overlay directory's under its name.
			served := strings.TrimPrefix(tt.path, "tree/")
			var oe *OutsideError
			if !errors.As(st.Err, &oe) || oe.Path != served {
				t.Fatalf("err = %v, want an *OutsideError naming %s", st.Err, served)
			}
			if strings.Contains(st.Err.Error(), dir) {
				t.Errorf("the error names the server's disk: %v", st.Err)
			}
			if strings.Contains(st.Err.Error(), secret) {
				t.Errorf("the error quotes the secret: %v", st.Err)
			}
		})
	}
}

// TestRootLinkFollowedOnce: the root may be a symbolic link (git-sync swaps
// one); a link inside whose absolute target spells the root through that
// link is inside too.
func TestRootLinkFollowedOnce(t *testing.T) {
	dir, tree, _ := containTree(t)
	cur := filepath.Join(dir, "current")
	link(t, tree, cur)
	link(t, filepath.Join(cur, "common"), filepath.Join(tree, "apps/s"))
	store := NewStore(&Loader{Inputs: Inputs{Trees: []string{cur}}})
	if st := store.Reload(context.Background(), true); st.Outcome != Activated {
		t.Fatal(st.Err)
	}
	if _, err := store.Current().Resolve("ds.s"); err != nil {
		t.Error(err)
	}
}

// TestConfinedResolve holds the resolution itself: every link inside is
// followed to a name without links, every way out is errOutside.
func TestConfinedResolve(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"root/a/f": "x", "root/b/g": "y", "out/h": "z"})
	root := filepath.Join(dir, "root")
	for at, target := range map[string]string{
		"root/rel":     "a/f",
		"root/a/up":    "../b/g",
		"root/abs":     filepath.Join(root, "b"),
		"root/chain":   "rel",
		"root/loop":    "loop",
		"root/away":    "../out/h",
		"root/absaway": filepath.Join(dir, "out"),
		"root/dangle":  "nothing/../../x",
	} {
		link(t, target, filepath.Join(dir, at))
	}
	files, closeFiles := Inputs{Trees: []string{root}}.openFiles()
	defer closeFiles()
	d := files.dirs[0]
	tests := []struct {
		rel, want string
		err       error
	}{
		{rel: "a/f", want: "a/f"},
		{rel: "rel", want: "a/f"},
		{rel: "chain", want: "a/f"},
		{rel: "a/up", want: "b/g"},
		{rel: "abs/g", want: "b/g"},
		{rel: "missing/x", want: "missing/x"},
		{rel: "away", err: errOutside},
		{rel: "absaway/h", err: errOutside},
		{rel: "..", err: errOutside},
		{rel: "dangle", err: os.ErrNotExist},
		{rel: "loop", err: syscall.ELOOP},
	}
	for _, tt := range tests {
		got, _, err := d.resolve(tt.rel, true)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("resolve(%q) = %q, %v; want %q, %v", tt.rel, got, err, tt.want, tt.err)
		}
	}
	// Lstat and ReadLink do not follow the last link.
	if target, err := files.ReadLink(nameOf(t, filepath.Join(root, "rel"))); err != nil || target != "a/f" {
		t.Errorf("ReadLink = %q, %v", target, err)
	}
	if _, err := files.Open(nameOf(t, filepath.Join(root, "away"))); !errors.Is(err, errOutside) {
		t.Errorf("Open through a link out: %v", err)
	}
	if b, err := readAll(files, nameOf(t, filepath.Join(dir, "out/h"))); err != nil || b != "z" {
		t.Errorf("a file outside every confined directory reads as it is: %q, %v", b, err)
	}
}

func readAll(files *osFiles, name string) (string, error) {
	f, err := files.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return string(b), err
}

// nameOf is an absolute path as a name in the root file system.
func nameOf(t *testing.T, abs string) string {
	t.Helper()
	n, err := Inputs{}.rootedName(abs)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReadingIsOneInstant: a reading looks at each name's metadata and
// each directory's listing once, so every pass over the tree sees the same
// tree; a new reading sees it anew. Bytes are read afresh, with what the
// opened file is, so that a file changed during the reading is told from
// the one first looked at (Loader.readDeferred).
func TestReadingIsOneInstant(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"root/a/f": "x", "root/a/g": "y"})
	root := filepath.Join(dir, "root")
	name := func(rel string) string { return nameOf(t, filepath.Join(root, rel)) }
	look := func(files *osFiles) (size int64, names []string) {
		t.Helper()
		info, err := files.Stat(name("a/f"))
		if err != nil {
			t.Fatal(err)
		}
		es, err := files.ReadDir(name("a"))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			names = append(names, e.Name())
		}
		return info.Size(), names
	}
	files, closeFiles := Inputs{Trees: []string{root}}.openFiles()
	defer closeFiles()
	size, names := look(files)
	if size != 1 || !slices.Equal(names, []string{"f", "g"}) {
		t.Fatalf("first look: %d bytes, %q", size, names)
	}
	es, _ := files.ReadDir(name("a"))
	clear(es) // a caller's list is its own
	if err := os.WriteFile(filepath.Join(root, "a/f"), []byte("xyz"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a/h"), []byte("z"), 0o644); err != nil {
		t.Fatal(err)
	}
	if size, names := look(files); size != 1 || !slices.Equal(names, []string{"f", "g"}) {
		t.Errorf("the same reading looked again: %d bytes, %q; want what it saw first", size, names)
	}
	data, info, err := check.ReadFile(files, name("a/f"), 1<<20)
	if err != nil || string(data) != "xyz" || info.Size() != 3 {
		t.Errorf("ReadFile = %q, %d bytes, %v; want the bytes now and the opened file's size", data, info.Size(), err)
	}
	again, closeAgain := Inputs{Trees: []string{root}}.openFiles()
	defer closeAgain()
	if size, names := look(again); size != 3 || !slices.Equal(names, []string{"f", "g", "h"}) {
		t.Errorf("a new reading: %d bytes, %q; want the tree as it is now", size, names)
	}
}
