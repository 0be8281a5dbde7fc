package snapshot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/memfs"
	"github.com/celine-eu/governanced/internal/testfs"
)

// heldTree is a tree of three apps: grid offers a dataset whose owner the
// registry resolves, meters has an overlay beside its base, weather one
// in the overlay directory and an input grid produces; apps/docs holds no
// governance file.
func heldTree() map[string]string {
	owner := func(id string) string {
		return "  - id: " + id + "\n    type: schema:Organization\n    name: " + id + "\n    url: https://" + id + ".example\n"
	}
	return map[string]string{
		"apps/grid/governance.yaml": "defaults: {row_filters: []}\nsources:\n" +
			"  datasets.grid.load:\n    ownership: [{name: first, type: DATA_OWNER}]\n    expose: true\n    dataspace: {expose: true}\n" +
			"  datasets.grid.raw:\n    access_level: internal\n",
		"apps/meters/governance.yaml":      "defaults: {access_level: internal}\nsources:\n  datasets.meters.daily: {expose: true, row_filters: []}\n",
		"apps/meters/governance.prod.yaml": "sources:\n  datasets.meters.daily: {access_level: restricted}\n",
		"apps/weather/governance.yaml": "defaults: {access_level: internal}\ndepends_on:\n  - dataset: datasets.grid.*\n" +
			"sources:\n  datasets.weather.hourly: {expose: true, row_filters: []}\n  datasets.weather.*: {}\n",
		"deploy/governance.weather.yaml": "defaults: {classification: green}\n",
		"apps/docs/README.md":            "no governance here\n",
		"owners.yaml":                    "owners:\n" + owner("first") + owner("second"),
		"placeholders.yaml":              "operator: second\n",
	}
}

// contents keeps every file a test wrote, by the hash of its bytes: what a
// state directory would keep of every revision.
type contents map[string][]byte

// take reads every file under dir into c.
func (c contents) take(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		sum := sha256.Sum256(b)
		c[hex.EncodeToString(sum[:])] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// rebuild builds tree from the bytes c holds, laid out as a state
// directory lays it out.
func (c contents) rebuild(t *testing.T, tree InputTree) (*Snapshot, error) {
	t.Helper()
	var fsys memfs.FS
	for _, d := range tree.Dirs {
		if err := fsys.AddDir(d); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range tree.Files {
		b, ok := c[f.SHA256]
		if !ok {
			t.Fatalf("%s: no file ever held %s", f.Path, f.SHA256)
		}
		if err := fsys.Add(f.Path, b); err != nil {
			t.Fatal(err)
		}
	}
	return tree.Loader(&fsys).Build(context.Background())
}

// sameAsItsFiles holds what store serves to a fresh build of the files
// it names as its inputs.
func sameAsItsFiles(t *testing.T, store *Store, c contents, what string) {
	t.Helper()
	snap := store.Current()
	fresh, err := c.rebuild(t, snap.InputTree())
	if err != nil {
		t.Fatalf("%s: a fresh build of the files served: %v", what, err)
	}
	if diff := cmp.Diff(served(t, fresh), served(t, snap)); diff != "" {
		t.Errorf("%s: served (-a fresh build of its files +served):\n%s", what, diff)
	}
}

// ruleBody is what snap resolves dataset id to: its app, how it matched,
// and the rule as JSON (what a rule body says but the revision).
func ruleBody(t *testing.T, snap *Snapshot, id string) string {
	t.Helper()
	d, err := snap.Resolve(id)
	if err != nil {
		return err.Error()
	}
	var buf bytes.Buffer
	buf.WriteString(d.App.Name + " ")
	buf.Write(d.MatchFor(id).AppendJSON(nil))
	buf.WriteByte(' ')
	d.Rule().AppendJSON(&buf)
	return buf.String()
}

// TestHeldApps: with IsolateApps, a reload whose failing findings are all
// about some apps' own files serves the others as their files say and
// those apps at their last good build (absent when they had none); any
// other failing finding rejects the reload as a whole. Every snapshot
// served is a fresh build of the files it names.
func TestHeldApps(t *testing.T) {
	const (
		notYAML   = "sources: [\n"
		weatherV2 = "defaults: {access_level: restricted}\ndepends_on:\n  - dataset: datasets.grid.*\n" +
			"sources:\n  datasets.weather.hourly: {expose: true, row_filters: []}\n  datasets.weather.*: {}\n"
	)
	cases := []struct {
		name   string
		edit   map[string]string // "" deletes the file
		strict bool
		want   Outcome
		held   []string // apps held at their last good build
		absent []string // apps held with no build to serve
		// notHeld is part of why no app was held (Rejected).
		notHeld string
		// ambiguous is a dataset the apps served declare alike: served
		// as ambiguous, not a finding that holds either.
		ambiguous string
	}{
		{name: "a base that is not YAML, another app edited",
			edit: map[string]string{"apps/grid/governance.yaml": notYAML, "apps/weather/governance.yaml": weatherV2},
			want: Held, held: []string{"grid"}},
		{name: "a schema violation",
			edit: map[string]string{"apps/meters/governance.yaml": "defaults: {access_level: publik}\nsources: {}\n"},
			want: Held, held: []string{"meters"}},
		{name: "an overlay beside its base that is not YAML",
			edit: map[string]string{"apps/meters/governance.prod.yaml": notYAML},
			want: Held, held: []string{"meters"}},
		{name: "an overlay in the overlay directory that is not YAML",
			edit: map[string]string{"deploy/governance.weather.yaml": notYAML},
			want: Held, held: []string{"weather"}},
		{name: "two overlays claim one base",
			edit: map[string]string{"deploy/governance.meters.yaml": "defaults: {tags: [x]}\n"},
			want: Held, held: []string{"meters"}},
		{name: "the overlay of a held base removed",
			edit: map[string]string{"apps/meters/governance.yaml": notYAML, "apps/meters/governance.prod.yaml": ""},
			want: Held, held: []string{"meters"}},
		{name: "a new app that never passed",
			edit: map[string]string{"apps/newapp/governance.yaml": notYAML},
			want: Held, absent: []string{"newapp"}},
		{name: "a new app that never passed, an overlay no base takes beside it",
			edit: map[string]string{"apps/newapp/governance.yaml": notYAML, "apps/newapp/governance.dev.yaml": "defaults: {tags: [dev]}\n"},
			want: Held, absent: []string{"newapp"}},
		{name: "an app removed, another broken",
			edit: map[string]string{"apps/weather/governance.yaml": "", "deploy/governance.weather.yaml": "", "apps/grid/governance.yaml": notYAML},
			want: Held, held: []string{"grid"}},
		{name: "strict: a warning in one app",
			edit:   map[string]string{"apps/meters/governance.yaml": "defaults: {access_level: internal}\nextra: 1\nsources:\n  datasets.meters.daily: {expose: true, row_filters: []}\n"},
			strict: true, want: Held, held: []string{"meters"}},
		{name: "the owners registry is not YAML",
			edit: map[string]string{"owners.yaml": "owners: [\n", "apps/weather/governance.yaml": weatherV2},
			want: Rejected, notHeld: "owners.yaml"},
		{name: "the placeholder map is not YAML",
			edit: map[string]string{"placeholders.yaml": "operator: [\n", "apps/weather/governance.yaml": weatherV2},
			want: Rejected, notHeld: "placeholders.yaml"},
		{name: "a dataset key two apps declare (no finding: it resolves as ambiguous), a third app broken",
			edit: map[string]string{
				"apps/meters/governance.yaml":  "defaults: {access_level: internal}\nsources:\n  datasets.meters.daily: {expose: true, row_filters: []}\n  datasets.shared.x: {}\n",
				"apps/weather/governance.yaml": weatherV2 + "  datasets.shared.x: {}\n",
				"apps/grid/governance.yaml":    notYAML,
			},
			want: Held, held: []string{"grid"}, ambiguous: "datasets.shared.x"},
		{name: "an overlay no app takes is not YAML",
			edit: map[string]string{"deploy/governance.nobody.yaml": notYAML},
			want: Rejected, notHeld: "deploy/governance.nobody.yaml"},
		{name: "the owner a broken app names changed",
			edit: map[string]string{
				"apps/grid/governance.yaml": notYAML,
				"owners.yaml":               strings.Replace(heldTree()["owners.yaml"], "name: first", "name: First Ltd", 1),
			},
			want: Rejected, notHeld: "apps/grid/governance.yaml fails its check, and its last good build read"},
		{name: "every app broken",
			edit: map[string]string{"apps/grid/governance.yaml": notYAML, "apps/meters/governance.yaml": notYAML, "apps/weather/governance.yaml": notYAML},
			want: Held, held: []string{"grid", "meters", "weather"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := testfs.Tree(t, heldTree())
			loader := &Loader{Inputs: Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")},
				OverlayName: "prod", OverlayDir: filepath.Join(dir, "deploy"), Placeholders: filepath.Join(dir, "placeholders.yaml"), Strict: tc.strict}}
			store := NewStoreWith(loader, StoreOptions{IsolateApps: true})
			c := contents{}
			c.take(t, dir)
			first := store.Reload(context.Background(), true)
			if first.Outcome != Activated {
				t.Fatalf("first load: %v (%v)", first.Outcome, first.Err)
			}
			before := store.Current()
			for name, content := range tc.edit {
				if content == "" {
					if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
						t.Fatal(err)
					}
					continue
				}
				testfs.Write(t, dir, map[string]string{name: content})
			}
			c.take(t, dir)
			st := store.Reload(context.Background(), false)
			if st.Outcome != tc.want {
				t.Fatalf("outcome %v (%v), want %v", st.Outcome, st.Err, tc.want)
			}
			if tc.want == Rejected {
				if st.Rejected == nil || !strings.Contains(st.Rejected.NotHeld, tc.notHeld) {
					t.Fatalf("rejected, not held because %q; want it to say %q", st.Rejected.NotHeld, tc.notHeld)
				}
				if store.Current() != before || st.Held != nil {
					t.Fatal("a rejected reload changed what is served")
				}
				return
			}
			var gotHeld, gotAbsent []string
			for _, h := range st.Held {
				if len(h.Problems) == 0 || h.Since.Before(st.At) || h.Since.After(st.At.Add(st.Duration)) {
					t.Errorf("%s held with problems %q since %v; want its problems, since the reload (%v, %v)", h.App, h.Problems, h.Since, st.At, st.Duration)
				}
				if h.Served == nil {
					gotAbsent = append(gotAbsent, h.App)
					continue
				}
				gotHeld = append(gotHeld, h.App)
			}
			if !slices.Equal(gotHeld, tc.held) || !slices.Equal(gotAbsent, tc.absent) {
				t.Fatalf("held %v, absent %v; want %v, %v", gotHeld, gotAbsent, tc.held, tc.absent)
			}
			snap, held, _ := store.Serving()
			if st.Served != snap.Revision || !slices.EqualFunc(held, st.Held, func(a, b HeldApp) bool { return a.App == b.App }) {
				t.Errorf("the status says %s holding %v; the store serves %s holding %v", st.Served, st.Held, snap.Revision, held)
			}
			if st.Rejected == nil || st.Rejected.Revision == snap.Revision || st.Revision != st.Rejected.Revision {
				t.Errorf("a held reload examined %s, rejected %+v; want the whole tree's revision, rejected, another than the one served", st.Revision, st.Rejected)
			}
			for _, app := range tc.held {
				a, b := before.App(app), snap.App(app)
				if a == nil || a != b {
					t.Errorf("%s: served %p, want its last good build %p", app, b, a)
				}
			}
			for _, app := range tc.absent {
				if snap.App(app) != nil {
					t.Errorf("%s never passed its check, yet is served", app)
				}
			}
			if tc.ambiguous != "" {
				var amb *AmbiguousError
				if _, err := snap.Resolve(tc.ambiguous); !errors.As(err, &amb) || len(amb.Apps) != 2 {
					t.Errorf("%s: %v; want it ambiguous between two apps", tc.ambiguous, err)
				}
			}
			sameAsItsFiles(t, store, c, "held")
		})
	}
}

// TestHeldAppsOverReloads follows one held app over reloads: the others
// advance while it is held, it keeps the time it was first held, the same
// broken files change nothing, and its repair serves the tree as its files
// say.
func TestHeldAppsOverReloads(t *testing.T) {
	dir := testfs.Tree(t, heldTree())
	clock := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	loader := &Loader{Inputs: Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}, OverlayName: "prod",
		OverlayDir: filepath.Join(dir, "deploy")}, Now: func() time.Time { clock = clock.Add(time.Second); return clock }}
	store := NewStoreWith(loader, StoreOptions{IsolateApps: true})
	c := contents{}
	step := func(name string, force bool, want Outcome, edit map[string]string) *ReloadStatus {
		t.Helper()
		testfs.Write(t, dir, edit)
		c.take(t, dir)
		st := store.Reload(context.Background(), force)
		if st.Outcome != want {
			t.Fatalf("%s: %v (%v), want %v", name, st.Outcome, st.Err, want)
		}
		sameAsItsFiles(t, store, c, name)
		return st
	}
	step("first load", true, Activated, nil)
	good := store.Current()
	gridLoad := ruleBody(t, good, "datasets.grid.load")

	broken := step("grid broken", false, Held, map[string]string{"apps/grid/governance.yaml": "sources: [\n"})
	if broken.Served != good.Revision || store.Current() != good {
		t.Error("grid held and nothing else changed, yet another snapshot is served")
	}
	since := broken.Held[0].Since
	again := step("the same files", false, Held, nil)
	if again.Held[0].Since != since || again.Served != good.Revision {
		t.Errorf("the same broken files: held since %v serving %s; want since %v serving %s", again.Held[0].Since, again.Served, since, good.Revision)
	}
	moved := step("weather edited, grid broken otherwise", false, Held, map[string]string{
		"apps/grid/governance.yaml":    "sources: {datasets.grid.load: {access_level: publik}}\n",
		"apps/weather/governance.yaml": strings.Replace(heldTree()["apps/weather/governance.yaml"], "access_level: internal", "access_level: restricted", 1),
	})
	if moved.Held[0].Since != since || !strings.Contains(moved.Held[0].Problems[0], "schema-violation") {
		t.Errorf("grid broken otherwise: held since %v for %q; want since %v, for its new problem", moved.Held[0].Since, moved.Held[0].Problems, since)
	}
	cur := store.Current()
	if cur.Revision == good.Revision || ruleBody(t, cur, "datasets.grid.load") != gridLoad {
		t.Errorf("weather's edit was not served (%v), or grid not at its last good build:\n%s\n%s", cur.Revision == good.Revision, ruleBody(t, cur, "datasets.grid.load"), gridLoad)
	}
	if !strings.Contains(ruleBody(t, cur, "datasets.weather.hourly"), `"access_level":"restricted"`) {
		t.Errorf("weather's edit is not served: %s", ruleBody(t, cur, "datasets.weather.hourly"))
	}
	if _, err := cur.ReadInput("apps/grid/governance.yaml"); err == nil {
		t.Error("the held app's served file read again from the tree, which holds another")
	}
	fixed := step("grid repaired", false, Activated, map[string]string{"apps/grid/governance.yaml": heldTree()["apps/grid/governance.yaml"]})
	if fixed.Held != nil || store.Current().App("grid") != cur.App("grid") {
		t.Error("the repaired app is still held, or was built again though its files are its last good ones")
	}
}

// TestHeldOnFirstLoad: an app that fails on the first load has no build to
// serve; the others are served without it, unless nothing, or nothing of
// one of the trees, would be served.
func TestHeldOnFirstLoad(t *testing.T) {
	const (
		good    = "defaults: {}\nsources:\n  datasets.x.a: {}\n"
		notYAML = "sources: [\n"
	)
	cases := []struct {
		name    string
		trees   map[string]map[string]string // tree → its files
		want    Outcome
		notHeld string
	}{
		{"one app of two broken", map[string]map[string]string{"t": {"apps/a/governance.yaml": good, "apps/b/governance.yaml": notYAML}}, Held, ""},
		{"every app broken", map[string]map[string]string{"t": {"apps/a/governance.yaml": notYAML}}, Rejected, "no app passes its check"},
		{"the one app of one of two trees broken", map[string]map[string]string{
			"one": {"governance.yaml": good}, "two": {"governance.yaml": notYAML},
		}, Rejected, "no app of the tree two passes its check"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			c := contents{}
			var trees []string
			for _, name := range slices.Sorted(maps.Keys(tc.trees)) {
				testfs.Write(t, filepath.Join(root, name), tc.trees[name])
				trees = append(trees, filepath.Join(root, name))
			}
			c.take(t, root)
			store := NewStoreWith(&Loader{Inputs: Inputs{Trees: trees}}, StoreOptions{IsolateApps: true})
			st := store.Reload(context.Background(), true)
			if st.Outcome != tc.want {
				t.Fatalf("%v (%v), want %v", st.Outcome, st.Err, tc.want)
			}
			if tc.want == Rejected {
				if !strings.Contains(st.Rejected.NotHeld, tc.notHeld) || store.Current() != nil {
					t.Fatalf("not held because %q, serving %v; want %q, nothing served", st.Rejected.NotHeld, store.Current() != nil, tc.notHeld)
				}
				return
			}
			if len(st.Held) != 1 || st.Held[0].Served != nil || store.Current().App(st.Held[0].App) != nil {
				t.Fatalf("held %+v; want the broken app, absent", st.Held)
			}
			sameAsItsFiles(t, store, c, "first load")
		})
	}
}
