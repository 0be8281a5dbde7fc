package state

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// tree is a revision's files by path, and the manifest naming them.
type tree map[string]string

func (tr tree) revision(at time.Time) Revision {
	h := sha256.New()
	var files []File
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range tr {
			if !yield(p) {
				return
			}
		}
	}) {
		sum := sha256.Sum256([]byte(tr[p]))
		files = append(files, File{Path: p, SHA256: hex.EncodeToString(sum[:])})
		fmt.Fprintf(h, "%s\x00%x\x00", p, sum)
	}
	return Revision{Revision: "sha256:" + hex.EncodeToString(h.Sum(nil)), SavedAt: at,
		Options: json.RawMessage(`{"Trees":["."]}`), Files: files, Dirs: []string{"overlays"}}
}

func (tr tree) read(p string) ([]byte, error) {
	s, ok := tr[p]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return []byte(s), nil
}

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

const config = "0123456789abcdef"

func open(t testing.TB, dir string, keep int) *Dir {
	t.Helper()
	d, err := Open(dir, keep)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// loaded is what Load gives back of rev: every file's content by path.
func loaded(t *testing.T, d *Dir, rev Revision) tree {
	t.Helper()
	fsys, err := d.Load(rev)
	if err != nil {
		t.Fatal(err)
	}
	out := tree{}
	err = fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range rev.Dirs {
		if info, err := fs.Stat(fsys, dir); err != nil || !info.IsDir() {
			t.Errorf("directory %s not given back: %v", dir, err)
		}
	}
	return out
}

func objects(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(dir, objectsDir), func(_ string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSaveListLoad: a saved revision is listed, newest first, and loads
// as it was saved; a file already there is not written again; past Keep
// revisions the oldest go, with the files only they named.
func TestSaveListLoad(t *testing.T) {
	dir := t.TempDir()
	d := open(t, dir, 2)
	trees := []tree{
		{"apps/a/governance.yaml": "a1", "apps/b/governance.yaml": "b1", "owners.yaml": "o"},
		{"apps/a/governance.yaml": "a2", "apps/b/governance.yaml": "b1", "owners.yaml": "o"},
		{"apps/a/governance.yaml": "a3", "apps/b/governance.yaml": "b1", "owners.yaml": "o"},
	}
	wantWritten := []int{3, 1, 1}
	for i, tr := range trees {
		saved, err := d.Save(context.Background(), config, tr.revision(t0.Add(time.Duration(i)*time.Minute)), tr.read)
		if err != nil {
			t.Fatal(err)
		}
		if saved.Objects != wantWritten[i] {
			t.Errorf("save %d wrote %d files, want %d", i, saved.Objects, wantWritten[i])
		}
	}
	revs, problems, err := d.List(config)
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	if len(revs) != 2 || revs[0].Revision != trees[2].revision(t0).Revision || revs[1].Revision != trees[1].revision(t0).Revision {
		t.Fatalf("listed %d revisions, want the two newest, newest first", len(revs))
	}
	if d := cmp.Diff(trees[2], loaded(t, d, revs[0])); d != "" {
		t.Errorf("loaded (-saved +loaded):\n%s", d)
	}
	if string(revs[0].Options) != `{"Trees":["."]}` || revs[0].Config != config || revs[0].Format != Format {
		t.Errorf("the manifest's options, configuration or format: %s %s %s", revs[0].Options, revs[0].Config, revs[0].Format)
	}
	if n := objects(t, dir); n != 4 { // a2, a3, b1, o: a1 went with the oldest revision
		t.Errorf("%d files kept, want 4", n)
	}
	// Saving a revision again makes it the newest.
	if _, err := d.Save(context.Background(), config, trees[1].revision(t0.Add(time.Hour)), trees[1].read); err != nil {
		t.Fatal(err)
	}
	if revs, _, _ := d.List(config); revs[0].Revision != trees[1].revision(t0).Revision {
		t.Error("a revision saved again is not the newest")
	}
}

// TestSaveRefuses: a file that cannot be read, or whose bytes are not
// those the revision names, saves nothing.
func TestSaveRefuses(t *testing.T) {
	dir := t.TempDir()
	d := open(t, dir, 0)
	tr := tree{"a.yaml": "a"}
	rev := tr.revision(t0)
	for name, read := range map[string]func(string) ([]byte, error){
		"unreadable": func(string) ([]byte, error) { return nil, errors.New("gone") },
		"changed":    func(string) ([]byte, error) { return []byte("b"), nil },
	} {
		if _, err := d.Save(context.Background(), config, rev, read); err == nil {
			t.Errorf("%s: saved", name)
		}
	}
	bad := rev
	bad.Files = []File{{Path: "../a.yaml", SHA256: rev.Files[0].SHA256}}
	if _, err := d.Save(context.Background(), config, bad, tr.read); err == nil {
		t.Error("a path out of the tree: saved")
	}
	if revs, _, _ := d.List(config); len(revs) != 0 || objects(t, dir) != 0 {
		t.Errorf("a refused save left %d revisions, %d files", len(revs), objects(t, dir))
	}
}

// TestForeignDirectories: a directory that is not a state directory of
// this format is refused and left exactly as it was.
func TestForeignDirectories(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   map[string]string
		foreign string // part of the error; "" for none
	}{
		{"missing", nil, ""},
		{"empty", map[string]string{}, ""},
		{"a new volume", map[string]string{"lost+found/x": ""}, ""},
		{"a marker half written by a server that stopped", map[string]string{tempPrefix + "123": "governanced-st"}, ""},
		{"a directory named like a marker being written", map[string]string{tempPrefix + "123/x": ""}, `".tmp-123"`},
		{"someone's files", map[string]string{"notes.txt": "mine", "data/x": ""}, `"data", "notes.txt"`},
		{"another format", map[string]string{markerName: "governanced-state/9\n"}, "governanced-state/9"},
		{"a file named like the marker", map[string]string{markerName: strings.Repeat("x", 100)}, "xxxx"},
		{"a marker too large to be one", map[string]string{markerName: strings.Repeat("x", 2000)}, "not a regular file of at most"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			if tc.files != nil {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for name, content := range tc.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before := listing(t, dir)
			_, err := Open(dir, 0)
			var fe *ForeignError
			if tc.foreign == "" {
				if err != nil {
					t.Fatal(err)
				}
				if b, _ := os.ReadFile(filepath.Join(dir, markerName)); string(b) != Format+"\n" {
					t.Errorf("marker %q", b)
				}
				if temps, _ := filepath.Glob(filepath.Join(dir, tempPrefix+"*")); len(temps) > 0 {
					t.Errorf("temporary files left: %v", temps)
				}
				return
			}
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.foreign) {
				t.Fatalf("err %v, want a *ForeignError saying %s", err, tc.foreign)
			}
			if after := listing(t, dir); !slices.Equal(before, after) {
				t.Errorf("the foreign directory changed: %v → %v", before, after)
			}
		})
	}
}

// TestOpenAtOnce: servers starting at once on a directory that is not
// one yet each see the others' marker being written, not someone else's
// files, and all open it.
func TestOpenAtOnce(t *testing.T) {
	for range 20 {
		dir := filepath.Join(t.TempDir(), "state")
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for range cap(errs) {
			wg.Go(func() {
				if _, err := Open(dir, 0); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
}

func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		out = append(out, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCorruptRevisions: a manifest that is not one of this format, or
// whose files are missing or altered, is passed over with why; the other
// revisions are listed and load.
func TestCorruptRevisions(t *testing.T) {
	good := tree{"apps/a/governance.yaml": "a", "owners.yaml": "o"}
	other := tree{"apps/a/governance.yaml": "a2", "owners.yaml": "o2"}
	manifest := func(edit func(m map[string]any)) func(t *testing.T, dir string, rev Revision) {
		return func(t *testing.T, dir string, rev Revision) {
			p := filepath.Join(dir, revisionsDir, manifestName(config, rev.Revision))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			edit(m)
			if b, err = json.Marshal(m); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	object := func(edit func(p string) error) func(t *testing.T, dir string, rev Revision) {
		return func(t *testing.T, dir string, rev Revision) {
			sum := rev.Files[1].SHA256 // owners.yaml's, which only this revision names
			if err := edit(filepath.Join(dir, objectsDir, sum[:2], sum)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name    string
		corrupt func(t *testing.T, dir string, rev Revision)
		listed  bool   // still listed; Load then fails
		why     string // part of the problem
	}{
		{"not JSON", func(t *testing.T, dir string, rev Revision) {
			if err := os.WriteFile(filepath.Join(dir, revisionsDir, manifestName(config, rev.Revision)), []byte("{\"format\":"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, false, "not a manifest"},
		{"another format", manifest(func(m map[string]any) { m["format"] = "governanced-state/0" }), false, "governanced-state/0"},
		{"a member this format does not have", manifest(func(m map[string]any) { m["extra"] = 1 }), false, "unknown field"},
		{"a path out of the tree", manifest(func(m map[string]any) {
			m["files"].([]any)[0].(map[string]any)["path"] = "../../etc/passwd"
		}), false, "../../etc/passwd"},
		{"a hash that is not one", manifest(func(m map[string]any) { m["files"].([]any)[0].(map[string]any)["sha256"] = "x" }), false, "hash"},
		{"another revision than its name", manifest(func(m map[string]any) { m["revision"] = "sha256:" + strings.Repeat("0", 64) }), false, "its name"},
		{"a file missing", object(os.Remove), true, "no such file"},
		{"a file altered", object(func(p string) error { return os.WriteFile(p, []byte("O"), 0o644) }), true, "not those the revision names"},
		{"a file replaced by a directory", object(func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Mkdir(p, 0o755)
		}), true, "not a regular file"},
		// Hostile: what would block a read, or read without end.
		{"a file replaced by a FIFO nobody writes", object(func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return syscall.Mkfifo(p, 0o644)
		}), true, "not a regular file"},
		{"a file grown past any input", object(func(p string) error { return os.Truncate(p, maxObjectSize+1) }), true, "not a regular file of at most"},
		{"a file replaced by a link to one outside", object(func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Symlink("/etc/hostname", p)
		}), true, "not a regular file"},
		{"the manifest replaced by a FIFO", func(t *testing.T, dir string, rev Revision) {
			p := filepath.Join(dir, revisionsDir, manifestName(config, rev.Revision))
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}, false, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			d := open(t, dir, 0)
			for i, tr := range []tree{other, good} {
				if _, err := d.Save(context.Background(), config, tr.revision(t0.Add(time.Duration(i)*time.Minute)), tr.read); err != nil {
					t.Fatal(err)
				}
			}
			rev := good.revision(t0)
			tc.corrupt(t, dir, rev)
			revs, problems, err := d.List(config)
			if err != nil {
				t.Fatal(err)
			}
			var why error
			switch {
			case tc.listed:
				if len(revs) != 2 || revs[0].Revision != rev.Revision {
					t.Fatalf("listed %d", len(revs))
				}
				_, why = d.Load(revs[0])
				var ce *CorruptError
				if !errors.As(why, &ce) {
					t.Fatalf("loaded: %v, want a *CorruptError", why)
				}
			default:
				if len(revs) != 1 || len(problems) != 1 {
					t.Fatalf("listed %d, %d problems; want the other revision, one problem", len(revs), len(problems))
				}
				why = problems[0]
			}
			if why == nil || !strings.Contains(why.Error(), tc.why) {
				t.Errorf("why: %v; want it to say %q", why, tc.why)
			}
			if got := loaded(t, d, revs[len(revs)-1]); !cmp.Equal(got, other) {
				t.Errorf("the intact revision loads as %v", got)
			}
		})
	}
}

// TestConcurrentServers: two servers sharing a directory (two Dirs on one
// path: flock excludes open files, not processes) save revisions that
// share files while a third reads; every revision listed loads intact,
// neither prune takes the files of the other's save, and each keeps its
// own configuration's revisions.
func TestConcurrentServers(t *testing.T) {
	dir := t.TempDir()
	const rounds = 25
	configs := []string{config, "fedcba9876543210"}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for s := range 2 {
		d := open(t, dir, 2)
		wg.Go(func() {
			for i := range rounds {
				tr := tree{
					"apps/a/governance.yaml": fmt.Sprint("a", i%4),               // shared with the other server
					"apps/b/governance.yaml": fmt.Sprint("b", s, "-", i),         // its own
					"owners.yaml":            fmt.Sprint("o", i%3),               // shared
					"apps/c/governance.yaml": fmt.Sprint("c", (i+s)%5, "-", s%2), // shared now and then
				}
				// Both servers of one deployment in the first half, of two
				// in the second.
				c := configs[0]
				if i >= rounds/2 {
					c = configs[s]
				}
				if _, err := d.Save(context.Background(), c, tr.revision(t0.Add(time.Duration(i)*time.Second)), tr.read); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	reader := open(t, dir, 2)
	done := make(chan struct{})
	var reads sync.WaitGroup
	reads.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			for _, c := range configs {
				revs, problems, err := reader.List(c)
				if err != nil || len(problems) > 0 {
					errs <- fmt.Errorf("list: %v %v", err, problems)
					return
				}
				for _, r := range revs {
					if _, err := reader.Load(r); err != nil {
						// A revision pruned between the listing and the
						// load is gone as a whole: its manifest first.
						if _, serr := os.Stat(filepath.Join(dir, revisionsDir, manifestName(c, r.Revision))); serr == nil {
							errs <- fmt.Errorf("a listed revision still kept does not load: %w", err)
							return
						}
					}
				}
			}
		}
	})
	wg.Wait()
	close(done)
	reads.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, c := range configs {
		revs, problems, err := reader.List(c)
		if err != nil || len(problems) > 0 || len(revs) == 0 || len(revs) > 2 {
			t.Fatalf("%s: %d revisions, %v %v", c, len(revs), err, problems)
		}
		for _, r := range revs {
			loaded(t, reader, r)
		}
	}
	temps, _ := filepath.Glob(filepath.Join(dir, "*", tempPrefix+"*"))
	more, _ := filepath.Glob(filepath.Join(dir, objectsDir, "*", tempPrefix+"*"))
	if len(temps)+len(more) > 0 {
		t.Errorf("temporary files left: %v %v", temps, more)
	}
}
