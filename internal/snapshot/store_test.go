package snapshot

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/celine-eu/governanced/internal/testfs"
)

func TestStoreReloadKeepsLastGood(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"apps/meters/governance.yaml": baseYAML,
	})
	store := NewStore(&Loader{Inputs: Inputs{Trees: []string{dir}}})
	if store.Current() != nil {
		t.Fatal("a snapshot before the first load")
	}
	step := func(name string, force bool, want Outcome) *ReloadStatus {
		t.Helper()
		st := store.Reload(context.Background(), force)
		if st.Outcome != want {
			t.Fatalf("%s: outcome %v (%v), want %v", name, st.Outcome, st.Err, want)
		}
		return st
	}
	first := step("first load", true, Activated)
	rev1 := store.Current().Revision
	if first.Revision != rev1 || !strings.HasPrefix(rev1, "sha256:") {
		t.Fatalf("revision %q / %q", first.Revision, rev1)
	}
	step("nothing changed", false, Unchanged)

	gov := filepath.Join(dir, "apps", "meters", "governance.yaml")
	if err := os.WriteFile(gov, []byte(strings.Replace(baseYAML, "access_level: internal", "access_level: open", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	step("an edit", false, Activated)
	rev2 := store.Current().Revision
	if rev2 == rev1 {
		t.Fatal("an edit kept the revision")
	}

	if err := os.WriteFile(gov, []byte("defaults: {access_level: publik}\nsources: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rejected := step("a broken edit", false, Rejected)
	if store.Current().Revision != rev2 {
		t.Fatal("a rejected reload replaced the snapshot")
	}
	if rejected.Rejected == nil || len(rejected.Rejected.Problems) == 0 ||
		!strings.Contains(rejected.Rejected.Problems[0], "governance.yaml:1:") ||
		!strings.Contains(rejected.Rejected.Problems[0], "schema-violation") {
		t.Fatalf("the rejection does not name the file, line and reason: %+v", rejected.Rejected)
	}
	if rep := rejected.Rejected.Report; rep == nil || rep.OK {
		t.Fatalf("rejected report: %+v", rep)
	}
	again := step("the same broken inputs", false, Rejected)
	if again.Rejected == nil {
		t.Fatal("a repeated rejection lost its report")
	}
	if st := store.Stats(); st.OK != 2 || st.Failed != 1 {
		t.Fatalf("stats %+v, want 2 activations and 1 failure", st)
	}

	if err := os.WriteFile(gov, []byte(baseYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	step("fixed", false, Activated)
	if store.Current().Revision != rev1 {
		t.Fatal("the same bytes gave another revision")
	}
}

func TestFirstLoadRejected(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"apps/a/governance.yaml": "sources: ["})
	store := NewStore(&Loader{Inputs: Inputs{Trees: []string{dir}}})
	st := store.Reload(context.Background(), true)
	if st.Outcome != Rejected || store.Current() != nil {
		t.Fatalf("outcome %v, current %v", st.Outcome, store.Current())
	}
	if !strings.Contains(st.Err.Error(), "load-error") {
		t.Errorf("error %q does not say what failed", st.Err)
	}
}

// TestMissingTreeFails: a tree root that does not exist (before git-sync's
// first clone) fails the reload with an error saying so, rather than a check
// of nothing; once it appears, the next reload serves it.
func TestMissingTreeFails(t *testing.T) {
	root := filepath.Join(t.TempDir(), "tree")
	store := NewStore(&Loader{Inputs: Inputs{Trees: []string{root}}})
	st := store.Reload(context.Background(), true)
	var missing *MissingRootError
	if st.Outcome != Failed || !errors.As(st.Err, &missing) || missing.Root != root {
		t.Fatalf("outcome %v: %v", st.Outcome, st.Err)
	}
	testfs.Write(t, root, map[string]string{"apps/a/governance.yaml": baseYAML})
	if st := store.Reload(context.Background(), false); st.Outcome != Activated {
		t.Fatalf("after the tree appeared: %v: %v", st.Outcome, st.Err)
	}
}

// TestInputsChangedWhileRead: a file rewritten between being read and the
// end of the reading fails the reload with ErrInputsChanged, which the
// watcher retries after the debounce instead of reporting the half-written
// file as broken.
func TestInputsChangedWhileRead(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"apps/a/governance.yaml": baseYAML})
	l := &Loader{Inputs: Inputs{Trees: []string{dir}}}
	r, err := l.read(context.Background(), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	testfs.Append(t, dir, "apps/a/governance.yaml", "# more\n")
	if err := l.unchanged(r.plan.Inputs); !errors.Is(err, ErrInputsChanged) {
		t.Fatalf("err %v, want ErrInputsChanged", err)
	}
}

func TestInputsPathsAndRevision(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"tree/apps/a/governance.yaml":      "defaults: {}\n",
		"tree/apps/a/governance.prod.yaml": "defaults: {}\n",
		"tree/apps/a/README.md":            "not an input\n",
		"single/governance.yaml":           "defaults: {}\n",
		"owners.yaml":                      "owners: []\n",
	})
	in := Inputs{Trees: []string{"tree", "single"}, Owners: []string{"owners.yaml"}, Dir: dir}
	if v, err := in.view(os.DirFS("/"), true); err != nil || strings.Join(v.paths, " ") != "tree/apps/* single" {
		t.Errorf("the check's PATHs %q (%v), want the two trees by their names", v.paths, err)
	}
	revision := func() (string, []InputFile) {
		t.Helper()
		rev, files, err := (&Loader{Inputs: in}).Revision(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return rev, files
	}
	rev, files := revision()
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	if got, want := strings.Join(paths, " "), "owners.yaml single/governance.yaml tree/apps/a/governance.prod.yaml tree/apps/a/governance.yaml"; got != want {
		t.Errorf("inputs %q, want %q", got, want)
	}
	os.WriteFile(filepath.Join(dir, "tree/apps/a/README.md"), []byte("changed"), 0o644)
	if rev2, _ := revision(); rev2 != rev {
		t.Error("a file that is no input changed the revision")
	}
	os.WriteFile(filepath.Join(dir, "owners.yaml"), []byte("owners: [] # changed\n"), 0o644)
	if rev3, _ := revision(); rev3 == rev {
		t.Error("an owners file edit kept the revision")
	}
	in.OverlayName = "prod"
	if rev4, _ := revision(); rev4 == rev {
		t.Error("another overlay name kept the revision")
	}
}

// TestConcurrentReadsDuringReloads is for the race detector: readers resolve
// while reloads swap snapshots.
func TestConcurrentReadsDuringReloads(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"apps/meters/governance.yaml": baseYAML})
	store := NewStore(&Loader{Inputs: Inputs{Trees: []string{dir}}})
	store.Reload(context.Background(), true)
	gov := filepath.Join(dir, "apps", "meters", "governance.yaml")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			for {
				select {
				case <-stop:
					return
				default:
				}
				s := store.Current()
				for _, name := range []string{"datasets.gold.meters", "datasets.gold.x", "other"} {
					if d, err := s.Resolve(name); err == nil {
						buf.Reset()
						d.Rule().AppendJSON(&buf)
						buf.Write(d.Rule().AppendProvenanceJSON(nil))
						if s.App(d.App.Name) != d.App {
							t.Error("a dataset of one snapshot resolved in another")
						}
					}
				}
			}
		}()
	}
	for i := range 5 {
		os.WriteFile(gov, []byte(strings.Replace(baseYAML, "internal", []string{"open", "internal"}[i%2], 1)), 0o644)
		store.Reload(context.Background(), false)
	}
	close(stop)
	wg.Wait()
}

// TestSymlinkedRootSwap is a git-sync or Kubernetes volume update: the root
// is a symlink swapped atomically to another directory.
func TestSymlinkedRootSwap(t *testing.T) {
	// git-sync swaps a symlink to a new checkout: app b is the same bytes
	// in both, and is reused, read through the same link.
	unchanged := "defaults: {row_filters: []}\nsources:\n  ds.b: {expose: true}\n"
	dir := testfs.Tree(t, map[string]string{
		"v1/apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n",
		"v2/apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: false}\n",
		"v1/apps/b/governance.yaml": unchanged,
		"v2/apps/b/governance.yaml": unchanged,
	})
	link := filepath.Join(dir, "current")
	if err := os.Symlink(filepath.Join(dir, "v1"), link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	store := NewStore(&Loader{Inputs: Inputs{Trees: []string{link}}})
	if st := store.Reload(context.Background(), true); st.Outcome != Activated {
		t.Fatal(st.Err)
	}
	if n := len(store.Current().Inputs); n != 2 {
		t.Fatalf("%d inputs through the symlink, want 2", n)
	}
	tmp := filepath.Join(dir, "current.tmp")
	os.Symlink(filepath.Join(dir, "v2"), tmp)
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
	if st := store.Reload(context.Background(), false); st.Outcome != Activated || st.UnitsReused != 1 || st.UnitsBuilt != 1 {
		t.Fatalf("after the swap: %v (%v), %d reused, %d built; want activated, 1 and 1", st.Outcome, st.Err, st.UnitsReused, st.UnitsBuilt)
	}
	if d, _ := store.Current().Resolve("ds.x"); d.Expose {
		t.Error("the swapped-in tree is not served")
	}
}
