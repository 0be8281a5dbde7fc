package snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/graph"
	"github.com/celine-eu/governanced/internal/owners"
	"github.com/celine-eu/governanced/internal/testfs"
	"github.com/celine-eu/governanced/internal/treegen"
)

// served is everything a client can read of a snapshot, item by item: the
// report, the graph in both readings, every app (its files, defaults,
// depends_on and sources), and for every dataset its rule, provenance,
// match, gates and facet, and the resolution of a name only a glob
// matches.
func served(t *testing.T, s *Snapshot) []string {
	t.Helper()
	out := []string{s.Revision, string(reportJSON(s.Report())), fmt.Sprint(s.Counts)}
	for _, overlays := range []bool{false, true} {
		var buf bytes.Buffer
		if err := graph.WriteJSONMembers(&buf, s.GraphOf(overlays)); err != nil {
			t.Fatal(err)
		}
		out = append(out, buf.String())
	}
	for _, a := range s.Apps() {
		var buf bytes.Buffer
		fmt.Fprintf(&buf, "%s %s %s %v %v %v ", a.Name, a.File, a.OverlayFile, a.Config.Active, a.Config.DependsOnSet, a.Config.DependsOn)
		a.Config.Defaults.AppendJSON(&buf)
		for _, src := range a.Config.Sources {
			buf.WriteString(" " + src.Key + "=")
			src.Rule.AppendJSON(&buf)
		}
		out = append(out, buf.String())
	}
	dataset := func(buf *bytes.Buffer, name string, d *Dataset) {
		fmt.Fprintf(buf, "%s in %s: %s %v %v %q ", name, d.App.Name, d.MatchFor(name).AppendJSON(nil), d.Expose, d.DataspaceExpose, d.Conflict())
		d.Rule().AppendJSON(buf)
		buf.Write(d.Rule().AppendProvenanceJSON(nil))
	}
	for _, d := range s.Datasets() {
		var buf bytes.Buffer
		dataset(&buf, d.ID(), d)
		buf.Write(d.Facet("test", true))
		if got, err := s.Resolve(strings.TrimSuffix(d.ID(), "*") + "x"); err == nil {
			dataset(&buf, d.ID()+"x", got)
		} else {
			buf.WriteString(err.Error())
		}
		out = append(out, buf.String())
	}
	// What a search finds by owners' ids, names and aliases (the
	// registry's part of an app's index) and by apps' names.
	var texts []string
	for i, e := range s.Owners.All() {
		if i == 20 {
			break
		}
		texts = append(texts, e.ID)
		if e.Name != nil {
			texts = append(texts, *e.Name)
		}
		texts = append(texts, e.Aliases...)
	}
	for _, a := range s.Apps()[:min(20, len(s.Apps()))] {
		texts = append(texts, a.Name)
	}
	for _, text := range texts {
		q, err := NewQuery(text)
		if err != nil {
			continue
		}
		hits, _ := s.Page(Filter{Query: q}, 0, 1<<30)
		var b strings.Builder
		fmt.Fprintf(&b, "search %q:", text)
		for _, h := range hits {
			fmt.Fprintf(&b, " %s/%s %v %d", h.Dataset.App.Name, h.Dataset.ID(), h.Found.Fields, h.Found.Score)
		}
		out = append(out, b.String())
	}
	return out
}

// reportJSON renders the report as GET /report shows it.
func reportJSON(rep *check.Report) []byte {
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		panic(err)
	}
	return bytes.TrimSpace(buf.Bytes())
}

// reloadAndCompare reloads store and holds what it serves (or the report it
// rejects) to a fresh build of the same inputs.
func reloadAndCompare(t *testing.T, store *Store, loader *Loader, force bool, what string) *ReloadStatus {
	t.Helper()
	rs := store.Reload(context.Background(), force)
	fresh, ferr := (&Loader{Inputs: loader.Inputs}).Build(context.Background())
	switch rs.Outcome {
	case Activated, Unchanged:
		if ferr != nil {
			t.Fatalf("%s: reload %v, fresh build %v", what, rs.Outcome, ferr)
		}
		if diff := cmp.Diff(served(t, fresh), served(t, store.Current())); diff != "" {
			t.Errorf("%s: served (-fresh build +reload):\n%s", what, diff)
		}
	case Rejected:
		var rej *Rejection
		if !errors.As(ferr, &rej) {
			t.Fatalf("%s: reload rejected, fresh build %v", what, ferr)
		}
		if diff := cmp.Diff(reportJSON(rej.Report), reportJSON(rs.Rejected.Report)); diff != "" {
			t.Errorf("%s: rejected report (-fresh +reload):\n%s", what, diff)
		}
	default:
		t.Fatalf("%s: %v (%v)", what, rs.Outcome, rs.Err)
	}
	return rs
}

// TestStoreReusesUnchangedApps: a reload after one file changed builds only
// that file's app, serves the others' apps as they were, and serves exactly
// what a fresh build of the same bytes serves.
func TestStoreReusesUnchangedApps(t *testing.T) {
	tree := treegen.Generate(treegen.Options{Apps: 5, Sources: 300, Seed: 11})
	dir := t.TempDir()
	if err := tree.Write(dir); err != nil {
		t.Fatal(err)
	}
	loader := &Loader{Inputs: Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}, OverlayName: "deploy"}}
	store := NewStore(loader)
	edit := func(name, old, new string) { testfs.Replace(t, dir, name, old, new) }
	appendFile := func(name, text string) { testfs.Append(t, dir, name, text) }
	steps := []struct {
		name           string
		change         func()
		force          bool
		reused, built  int
		sameAppsExcept []string // nil: every app is rebuilt
	}{
		{"first load", func() {}, true, 0, 5, nil},
		{"one base edited", func() { edit("apps/app_002/governance.yaml", "expose: true", "expose: false") }, false, 4, 1, []string{"app_002"}},
		{"forced, nothing changed", func() {}, true, 5, 0, []string{}},
		// An owner's answer is what its entry says, not where: a line added
		// above every entry moves them all and rebuilds nothing, while every
		// entry edited rebuilds every app.
		{"a comment after the owners", func() { appendFile("owners.yaml", "# edited\n") }, false, 5, 0, []string{}},
		{"every owner moved", func() { edit("owners.yaml", "owners:\n", "# moved\nowners:\n") }, false, 5, 0, []string{}},
		{"every owner's name edited", func() { testfs.ReplaceAll(t, dir, "owners.yaml", "name: Organisation ", "name: Organization ") }, false, 0, 5, nil},
		// A rejected reload is never served: its apps are not kept for the
		// next one, which starts from the last tree served.
		{"a broken base", func() { edit("apps/app_001/governance.yaml", "sources:", "sources: [") }, false, 4, 1, nil},
		{"the base restored", func() { edit("apps/app_001/governance.yaml", "sources: [", "sources:") }, false, 5, 0, []string{}},
		{"a new overlay", func() {
			testfs.Write(t, dir, map[string]string{"apps/app_004/governance.deploy.yaml": "defaults:\n  tags: [added]\n"})
		}, false, 4, 1, []string{"app_004"}},
	}
	if _, err := os.Stat(filepath.Join(dir, "apps/app_004/governance.deploy.yaml")); err == nil {
		t.Fatal("the generated tree already has app_004's overlay: the last step would test nothing")
	}
	var prev *Snapshot
	for _, st := range steps {
		st.change()
		rs := reloadAndCompare(t, store, loader, st.force, st.name)
		if rs.UnitsReused != st.reused || rs.UnitsBuilt != st.built {
			t.Errorf("%s: %v, %d reused, %d built; want %d, %d", st.name, rs.Outcome, rs.UnitsReused, rs.UnitsBuilt, st.reused, st.built)
		}
		if rs.Outcome == Rejected {
			continue
		}
		cur := store.Current()
		if prev != nil && st.sameAppsExcept != nil {
			for _, a := range cur.Apps() {
				rebuilt := slices.Contains(st.sameAppsExcept, a.Name)
				if same := prev.App(a.Name) == a; same == rebuilt {
					t.Errorf("%s: app %s kept %v, want kept %v", st.name, a.Name, same, !rebuilt)
				}
			}
		}
		prev = cur
	}
}

// TestReuseFollowsEdits edits a generated tree step by step and reloads
// after each: every snapshot must equal a fresh build, and only the units an
// edit touched are checked again.
func TestReuseFollowsEdits(t *testing.T) {
	tree := treegen.Generate(treegen.Options{Apps: 6, Sources: 120, Seed: 7, OverlayShare: 0.5})
	dir := t.TempDir()
	if err := tree.Write(dir); err != nil {
		t.Fatal(err)
	}
	overlayName := tree.Options.OverlayName
	base := func(a int) string { return fmt.Sprintf("apps/app_%03d/governance.yaml", a) }
	overlay := func(a int) string { return fmt.Sprintf("apps/app_%03d/governance.%s.yaml", a, overlayName) }
	hasOverlay := func(a int) bool {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(overlay(a))))
		return err == nil
	}
	appendTo := func(name, text string) { testfs.Append(t, dir, name, text) }
	ownersEdit := func(old, new string) func(*Inputs) {
		return func(*Inputs) { testfs.Replace(t, dir, "owners.yaml", old, new) }
	}
	// checked: how many units the step checks again; -1: at least one.
	steps := []struct {
		name    string
		edit    func(in *Inputs)
		checked int
	}{
		{"first load", func(*Inputs) {}, 6},
		{"nothing changed", func(*Inputs) {}, 0},
		{"a comment in one base", func(*Inputs) { appendTo(base(1), "# edited\n") }, 1},
		{"an error in one base", func(*Inputs) {
			appendTo(base(2), "  datasets.broken:\n    access_level: topsecret\n")
		}, 1},
		{"the error fixed again", func(*Inputs) { testfs.Replace(t, dir, base(2), "topsecret", "internal") }, 1},
		{"a new overlay", func(*Inputs) {
			for a := range 6 {
				if !hasOverlay(a) {
					testfs.Write(t, dir, map[string]string{overlay(a): "defaults:\n  tags: [added]\n"})
					return
				}
			}
			t.Fatal("every app has an overlay")
		}, 1},
		{"an overlay removed", func(*Inputs) {
			for a := range 6 {
				if hasOverlay(a) {
					if err := os.Remove(filepath.Join(dir, filepath.FromSlash(overlay(a)))); err != nil {
						t.Fatal(err)
					}
					return
				}
			}
		}, 1},
		{"a comment in the owners file", func(*Inputs) { appendTo("owners.yaml", "# edited\n") }, 0},
		{"an owner no app names", func(*Inputs) {
			appendTo("owners.yaml", "  - id: newcomer\n    type: schema:Organization\n    name: Newcomer\n    url: https://newcomer.example\n")
		}, 0},
		{"every owner moved down a line", ownersEdit("owners:\n", "# a line above every entry\nowners:\n"), 0},
		{"one owner's name changed", ownersEdit("name: Organisation 3\n", "name: Organisation Three\n"), -1},
		{"one owner's DID removed", ownersEdit("    did: did:web:org4.example\n", ""), -1},
		// Rejected: the offers' owners resolve to nothing. A rejected build
		// is never reused: restoring the file reuses the last tree served.
		{"the owners renamed", func(*Inputs) { testfs.ReplaceAll(t, dir, "owners.yaml", "id: org_", "id: gone_") }, 6},
		{"the owners restored", func(*Inputs) { testfs.ReplaceAll(t, dir, "owners.yaml", "id: gone_", "id: org_") }, 0},
		{"a placeholder map", func(in *Inputs) {
			testfs.Write(t, dir, map[string]string{"placeholders.yaml": "operator: org_000\n"})
			in.Placeholders = filepath.Join(dir, "placeholders.yaml")
		}, 6},
		{"a comment in the placeholder map", func(*Inputs) { appendTo("placeholders.yaml", "# edited\n") }, 0},
		{"the placeholder map edited", func(*Inputs) {
			testfs.Replace(t, dir, "placeholders.yaml", "operator: org_000", "operator: org_001")
		}, 6},
		{"a comment in one overlay", func(*Inputs) {
			for a := range 6 {
				if hasOverlay(a) {
					appendTo(overlay(a), "# and a comment\n")
					return
				}
			}
		}, 1},
	}
	loader := &Loader{Inputs: Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}, OverlayName: overlayName}}
	store := NewStore(loader)
	for i, st := range steps {
		st.edit(&loader.Inputs)
		rs := reloadAndCompare(t, store, loader, true, fmt.Sprintf("step %d (%s)", i, st.name))
		switch {
		case st.checked < 0 && (rs.UnitsBuilt == 0 || rs.UnitsBuilt+rs.UnitsReused != 6):
			t.Errorf("step %d (%s): %d checked, %d reused; want some checked", i, st.name, rs.UnitsBuilt, rs.UnitsReused)
		case st.checked >= 0 && (rs.UnitsBuilt != st.checked || rs.UnitsReused != 6-st.checked):
			t.Errorf("step %d (%s): %d checked, %d reused; want %d checked", i, st.name, rs.UnitsBuilt, rs.UnitsReused, st.checked)
		}
	}
}

// TestReuseRandomEdits edits random files of a generated tree, a few at a
// time, and changes its shape (an app removed, an app copied under another
// name, an overlay added or removed), and holds every reload to a fresh
// build; every other step starts again from the generated tree, so that
// edits do not pile up into a tree that is never served.
func TestReuseRandomEdits(t *testing.T) {
	tree := treegen.Generate(treegen.Options{Apps: 8, Sources: 160, Seed: 3, OverlayShare: 0.5, DependsOn: 4})
	dir := t.TempDir()
	if err := tree.Write(dir); err != nil {
		t.Fatal(err)
	}
	appsDir := filepath.Join(dir, "apps")
	// The files to edit, as the tree has them now.
	files := func() []string {
		var names []string
		err := filepath.WalkDir(appsDir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				names = append(names, filepath.ToSlash(rel))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return append(names, "owners.yaml")
	}
	copies := 0
	shapeEdits := []func(app string){
		func(app string) { // removed, with its overlay
			if err := os.RemoveAll(filepath.Join(appsDir, app)); err != nil {
				t.Fatal(err)
			}
		},
		func(app string) { // copied as it is: its keys are claimed twice
			copies++
			if err := os.CopyFS(filepath.Join(appsDir, fmt.Sprintf("%s_copy%d", app, copies)), os.DirFS(filepath.Join(appsDir, app))); err != nil {
				t.Fatal(err)
			}
		},
		func(app string) { // an overlay added, or removed
			p := filepath.Join(appsDir, app, "governance."+tree.Options.OverlayName+".yaml")
			if err := os.Remove(p); errors.Is(err, os.ErrNotExist) {
				testfs.Write(t, appsDir, map[string]string{app + "/governance." + tree.Options.OverlayName + ".yaml": "defaults:\n  tags: [overlaid]\n"})
			} else if err != nil {
				t.Fatal(err)
			}
		},
	}
	replace := func(old, new string) func([]byte) []byte {
		return func(b []byte) []byte { return bytes.Replace(b, []byte(old), []byte(new), 1) }
	}
	add := func(text string) func([]byte) []byte {
		return func(b []byte) []byte { return append(b, text...) }
	}
	ownersEdits := []func([]byte) []byte{
		add("# a comment\n"),
		replace("    did: did:web:", "    url: https://no.did/"),
		replace("id: org_00", "id: org_10"),
		replace("name: Organisation", "name: Org"),
		add("  - id: org_100\n    aliases: [org_001]\n"),
		replace("owners:", "owners: ["),
	}
	edits := []func([]byte) []byte{
		add("# a comment\n"),
		replace("access_level: internal", "access_level: secret"),
		replace("expose: true", "expose: maybe"),
		replace("license:", "licence:"),
		replace("sources:", "sources: ["),
		add("  datasets.ds_extra_*:\n    tags: [x]\n"),
		// The graph: an input every app's keys match, one no key matches.
		replace("depends_on:\n", "depends_on:\n  - dataset: datasets.*\n"),
		replace("depends_on:\n", "depends_on:\n  - dataset: datasets.nowhere_*\n"),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	loader := &Loader{Inputs: Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}, OverlayName: tree.Options.OverlayName}}
	store := NewStoreWith(loader, StoreOptions{Workers: 2})
	reloadAndCompare(t, store, loader, true, "first load")
	reused := 0
	for step := range 24 {
		// Each step edits the tree last served (or, after a rejection, the
		// tree that is still served) in one to three places.
		if step%2 == 0 {
			if err := os.RemoveAll(appsDir); err != nil {
				t.Fatal(err)
			}
			if err := tree.Write(dir); err != nil {
				t.Fatal(err)
			}
		}
		for range 1 + rng.IntN(3) {
			if rng.IntN(3) == 0 {
				apps, err := os.ReadDir(appsDir)
				if err != nil || len(apps) == 0 {
					t.Fatal("no app left to change", err)
				}
				shapeEdits[rng.IntN(len(shapeEdits))](apps[rng.IntN(len(apps))].Name())
				continue
			}
			names := files()
			name := names[rng.IntN(len(names))]
			p := filepath.Join(dir, filepath.FromSlash(name))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			change := edits[rng.IntN(len(edits))]
			if name == "owners.yaml" {
				change = ownersEdits[rng.IntN(len(ownersEdits))]
			}
			if err := os.WriteFile(p, change(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		reused += reloadAndCompare(t, store, loader, true, fmt.Sprintf("step %d", step)).UnitsReused
	}
	if reused == 0 {
		t.Error("no step reused a unit")
	}
}

// TestReuseAsksTheRegistryAgain: a unit is reused after the owners file
// changed only if the registry answers every question it asked as before,
// not just the first.
func TestReuseAsksTheRegistryAgain(t *testing.T) {
	owner := func(id string) string {
		return "  - id: " + id + "\n    type: schema:Organization\n    name: " + id + "\n    url: https://" + id + ".example\n"
	}
	offer := func(key, id string) string {
		return "  " + key + ":\n    ownership: [{name: " + id + ", type: DATA_OWNER}]\n    expose: true\n    row_filters: []\n    dataspace: {expose: true}\n"
	}
	dir := testfs.Tree(t, map[string]string{
		"apps/grid/governance.yaml":  "defaults: {row_filters: []}\nsources:\n" + offer("datasets.gold.a", "first") + offer("datasets.gold.b", "second"),
		"apps/other/governance.yaml": "defaults: {row_filters: []}\nsources:\n  datasets.gold.c: {}\n",
		"owners.yaml":                "owners:\n" + owner("first") + owner("second"),
	})
	loader := &Loader{Inputs: Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}}}
	store := NewStore(loader)
	for _, step := range []struct {
		name     string
		owners   string
		checked  int
		rejected bool
	}{
		{"first load", "owners:\n" + owner("first") + owner("second"), 2, false},
		{"an owner no unit names", "owners:\n" + owner("first") + owner("second") + owner("third"), 0, false},
		{"the second owner gone", "owners:\n" + owner("first") + owner("third"), 1, true},
		{"nothing changed", "owners:\n" + owner("first") + owner("third"), 1, true},
	} {
		testfs.Write(t, dir, map[string]string{"owners.yaml": step.owners})
		rs := reloadAndCompare(t, store, loader, true, step.name)
		if rs.UnitsBuilt != step.checked || (rs.Outcome == Rejected) != step.rejected {
			t.Errorf("%s: %v with %d units checked, want rejected %v with %d", step.name, rs.Outcome, rs.UnitsBuilt, step.rejected, step.checked)
		}
	}
}

// TestUnitKeyCoversTheUnit holds the reuse rule to the check's own input:
// changing any field of check.Unit — or of a file or the shared inputs in
// it — changes the key, except the registry, whose answers are compared
// instead. A field added to check.Unit that the key does not cover fails
// here, so a rule can never read something a reload would not notice.
func TestUnitKeyCoversTheUnit(t *testing.T) {
	base := check.Unit{
		App:      "grid",
		Base:     check.File{Display: "apps/grid/governance.yaml", Name: "t/apps/grid/governance.yaml", Data: []byte("sources: {}\n")},
		Overlays: []check.File{{Display: "apps/grid/governance.grid.yaml", Name: "t/apps/grid/governance.grid.yaml", Data: []byte("defaults: {}\n")}},
		Env:      check.Env{Placeholders: map[string]string{"a": "b"}},
	}
	// Every leaf, one at a time.
	for _, leaf := range unitLeaves() {
		ref := cloneUnit(base)
		if leaf.prepare != nil {
			leaf.prepare(&ref)
		}
		u := cloneUnit(ref)
		leaf.change(&u)
		if unitKey(&u, nil) == unitKey(&ref, nil) {
			t.Errorf("changing %s leaves the unit key as it was: a rule reading it would serve a stale unit", leaf.name)
		}
	}
	// Two fields are left out. File.Deferred: a file is deferred only
	// when the digest the key reads stands for its bytes, and a unit to be
	// checked has its deferred files read first (reading.sortUnits).
	// Env.Values: where a result takes its values from changes no result.
	if n, want := len(unitLeaves()), countLeaves(reflect.TypeOf(check.Unit{}))-2; n != want {
		t.Errorf("the test changes %d fields of check.Unit, which has %d: add the new field to unitLeaves and to unitKey", n, want)
	}
}

// TestUnitKeyLeavesOutWhereTheTreeIs: the same files under the same display
// paths, read from another directory, key alike, so a diff's head tree
// reuses its base's units; but an app named after its directory does not.
func TestUnitKeyLeavesOutWhereTheTreeIs(t *testing.T) {
	u := check.Unit{
		App:  "grid",
		Base: check.File{Display: "apps/grid/governance.yaml", Name: "base/apps/grid/governance.yaml", Data: []byte("sources: {}\n")},
	}
	moved := cloneUnit(u)
	moved.Base.Name = "head/apps/grid/governance.yaml"
	if unitKey(&u, nil) != unitKey(&moved, nil) {
		t.Error("the same app read from another directory keys differently: a diff's head would check it again")
	}
	u.App, moved.App = "", ""
	if unitKey(&u, nil) == unitKey(&moved, nil) {
		t.Error("a root named \".\" is named after its directory, yet moving it leaves the key as it was")
	}
}

type unitLeaf struct {
	name string
	// prepare makes the unit one whose result reads the leaf; nil for
	// every unit.
	prepare func(u *check.Unit)
	change  func(u *check.Unit)
}

// unitLeaves changes each field of a unit in turn.
func unitLeaves() []unitLeaf {
	return []unitLeaf{
		{name: "App", change: func(u *check.Unit) { u.App = "other" }},
		{name: "Base.Display", change: func(u *check.Unit) { u.Base.Display = "x" }},
		// A name is read only to name an app that has none.
		{name: "Base.Name", prepare: func(u *check.Unit) { u.App = "" }, change: func(u *check.Unit) { u.Base.Name = "x/governance.yaml" }},
		{name: "Base.Data", change: func(u *check.Unit) { u.Base.Data = []byte("sources: {a: {}}\n") }},
		{name: "Base.Err", change: func(u *check.Unit) { u.Base.Err = errors.New("unreadable") }},
		{name: "Overlays", change: func(u *check.Unit) { u.Overlays = append(u.Overlays, u.Overlays[0]) }},
		// The key says whether there is a registry; what it answers is
		// compared by TestReuseAsksTheRegistryAgain.
		{name: "Env.Owners", change: func(u *check.Unit) { u.Env.Owners = owners.Build(nil) }},
		{name: "Env.Placeholders", change: func(u *check.Unit) { u.Env.Placeholders = map[string]string{"a": "c"} }},
		{name: "Env.Dataspace", change: func(u *check.Unit) { u.Env.Dataspace = true }},
	}
}

// countLeaves counts the fields of t, descending into structs (a slice of
// files counts once: its elements are Files, counted through Base).
func countLeaves(t reflect.Type) int {
	n := 0
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() == reflect.Struct {
			n += countLeaves(f.Type)
			continue
		}
		n++
	}
	return n
}

func cloneUnit(u check.Unit) check.Unit {
	u.Overlays = slices.Clone(u.Overlays)
	return u
}

// TestReadDefersKnownFiles: a reading after one file changed reads that
// file alone; the files of the units it reuses are vouched for by their
// identity and never read, nor are those of a unit whose owners' entries
// changed: its ownership names are resolved again from its last check.
// The owners file is parsed again only when its bytes changed.
func TestReadDefersKnownFiles(t *testing.T) {
	tree := treegen.Generate(treegen.Options{Apps: 4, Sources: 40, Seed: 5, OverlayShare: -1})
	dir := t.TempDir()
	if err := tree.Write(dir); err != nil {
		t.Fatal(err)
	}
	loader := &Loader{Inputs: Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}}}
	store := NewStore(loader)
	reloadAndCompare(t, store, loader, true, "first load")
	testfs.Replace(t, dir, "apps/app_001/governance.yaml", "expose: true", "expose: false")
	r, err := loader.read(context.Background(), store.digests, store.cur.Load().units, store.registry)
	if err != nil {
		t.Fatal(err)
	}
	if r.plan.RegistryBuild == nil || r.plan.RegistryBuild != store.registry {
		t.Error("the owners file did not change, and was parsed again")
	}
	// Whether the plan read a file: its input says (a unit's own copy lets
	// go of the bytes once hashed, to read them again when checked).
	read := func(name string) bool {
		for _, in := range r.plan.Inputs {
			if in.Name == name {
				return !in.Deferred
			}
		}
		t.Fatalf("%s is no input", name)
		return false
	}
	for i, u := range r.plan.Units {
		changed := u.App == "app_001"
		if got := r.reuse[i] == nil; got != changed {
			t.Errorf("%s: to be checked %v, want %v", u.App, got, changed)
		}
		if changed && !read(u.Base.Name) {
			t.Errorf("%s: the changed file was not read", u.App)
		}
		if !changed && (read(u.Base.Name) || !u.Base.Deferred || u.Base.Data != nil) {
			t.Errorf("%s: an unchanged file was read", u.App)
		}
	}
	// Every owner renamed: every unit asked after one, so each is
	// resolved again, its file unread, but for the one edited, which is
	// checked.
	testfs.ReplaceAll(t, dir, "owners.yaml", "name: Organisation ", "name: Organization ")
	r, err = loader.read(context.Background(), store.digests, store.cur.Load().units, store.registry)
	if err != nil {
		t.Fatal(err)
	}
	if r.plan.RegistryBuild == store.registry {
		t.Error("the owners file changed, and its last build was taken")
	}
	for i, u := range r.plan.Units {
		changed := u.App == "app_001"
		if r.reuse[i] != nil || (r.resolve[i] == nil) != changed || read(u.Base.Name) != changed {
			t.Errorf("%s: reused %v, resolved %v, read %v after its owner changed", u.App, r.reuse[i] != nil, r.resolve[i] != nil, read(u.Base.Name))
		}
	}
	reloadAndCompare(t, store, loader, false, "owners renamed")
}

// TestOwnersEditResolvesOnly: an owners registry edited resolves again the
// ownership names of the units whose owners' entries changed, without
// checking their files again, and serves (or rejects with the report)
// exactly what a cold start on the same files does: offers whose owners
// lose a DID or stop resolving, an alias moved to another owner.
func TestOwnersEditResolvesOnly(t *testing.T) {
	const registry = `owners:
  - id: example-dso
    type: schema:Corporation
    name: Example DSO
    did: did:web:dso.example
    aliases: [dso]
  - id: example-rec
    type: schema:NGO
    name: Example REC
    did: did:web:rec.example
    aliases: [rec]
`
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"owners.yaml": registry,
		"apps/a/governance.yaml": `defaults:
  ownership: [{name: rec, type: DATA_OWNER}]
sources:
  datasets.gold.x:
    expose: true
    ownership: [{name: dso, type: DATA_OWNER}, {name: example-dso, type: DATA_OWNER}]
    dataspace: {expose: true}
    row_filters: [{handler: organization_match, args: {org_type: dso}}]
  datasets.gold.y:
    expose: true
    row_filters: []
`,
		"apps/b/governance.yaml": `defaults:
  ownership: [{name: example-rec, type: DATA_OWNER}]
sources:
  datasets.silver.z:
    expose: false
`,
	})
	loader := &Loader{Inputs: Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}, Dataspace: true}}
	store := NewStore(loader)
	owners := func(old, new string) func() { return func() { testfs.Replace(t, dir, "owners.yaml", old, new) } }
	steps := []struct {
		name                    string
		change                  func()
		outcome                 Outcome
		reused, built, resolved int
	}{
		{"first load", func() {}, Activated, 0, 2, 0},
		{"the DSO's name edited", owners("name: Example DSO\n", "name: Example DSO, renamed\n"), Activated, 1, 1, 1},
		{"the REC's name edited", owners("name: Example REC\n", "name: Example REC, renamed\n"), Activated, 0, 2, 2},
		{"the alias rec moved to the DSO", func() {
			owners("aliases: [rec]\n", "aliases: []\n")()
			owners("aliases: [dso]\n", "aliases: [dso, rec]\n")()
		}, Activated, 0, 2, 2},
		{"the DSO's DID removed", owners("    did: did:web:dso.example\n", ""), Rejected, 1, 1, 1},
		{"the alias dso renamed", func() {
			owners("aliases: [dso, rec]\n", "aliases: [dso-renamed, rec]\n")()
			owners("name: Example DSO, renamed\n", "name: Example DSO, renamed\n    did: did:web:dso.example\n")()
		}, Rejected, 1, 1, 1},
		{"the alias restored", owners("aliases: [dso-renamed, rec]\n", "aliases: [dso, rec]\n"), Activated, 2, 0, 0},
	}
	for i, st := range steps {
		st.change()
		rs := reloadAndCompare(t, store, loader, i == 0, st.name)
		if rs.Outcome != st.outcome || rs.UnitsReused != st.reused || rs.UnitsBuilt != st.built || rs.UnitsResolved != st.resolved {
			t.Errorf("%s: %v, %d reused, %d built, %d resolved; want %v, %d, %d, %d", st.name, rs.Outcome,
				rs.UnitsReused, rs.UnitsBuilt, rs.UnitsResolved, st.outcome, st.reused, st.built, st.resolved)
		}
		if rs.Outcome == Rejected && !slices.ContainsFunc(rs.Rejected.Problems, func(p string) bool {
			return strings.Contains(p, check.CodeOwnerDIDMissing) || strings.Contains(p, check.CodeOwnerUnresolved)
		}) {
			t.Errorf("%s: rejected for %q, want an owner finding", st.name, rs.Rejected.Problems)
		}
	}
}

// TestOwnersEditKeepsEncodings: after an owners edit, a dataset whose
// ownership names resolve as before keeps the encoding readers made of it
// (Memo), one named by an alias included, and one whose names
// resolve to another owner is encoded again, as its rule changed.
func TestOwnersEditKeepsEncodings(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"owners.yaml": `owners:
  - {id: dso, type: schema:Corporation, name: DSO, aliases: [grid]}
  - {id: rec, type: schema:NGO, name: REC}
`,
		"apps/a/governance.yaml": `defaults:
  ownership: [{name: rec, type: DATA_OWNER}]
sources:
  datasets.gold.kept: {title: kept}
  datasets.gold.moved:
    ownership: [{name: grid, type: DATA_OWNER}]
`,
	})
	loader := &Loader{Inputs: Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}}}
	store := NewStore(loader)
	reloadAndCompare(t, store, loader, true, "first load")
	encodings := 0
	encode := func(d *Dataset) (*textPart, int64) {
		encodings++
		var buf bytes.Buffer
		d.Rule().AppendJSON(&buf)
		return &textPart{text: buf.String()}, int64(buf.Len())
	}
	memos := func() map[string]string {
		out := map[string]string{}
		for _, d := range store.Current().Datasets() {
			body, _ := Memo(d, encode)
			out[d.ID()] = body.text
		}
		body, _ := Memo(store.Current().App("a").Defaults(), encode)
		out[""] = body.text
		return out
	}
	before := memos()
	if encodings != 3 {
		t.Fatalf("%d encodings of three datasets", encodings)
	}
	// The DSO renamed: every name resolves as before, the alias grid
	// included, and no dataset is encoded again.
	served := store.Current()
	testfs.Replace(t, dir, "owners.yaml", "name: DSO,", "name: The DSO,")
	if rs := reloadAndCompare(t, store, loader, false, "an owner renamed"); rs.UnitsResolved != 1 {
		t.Fatalf("%v (%v), %d resolved; want the app resolved again", rs.Outcome, rs.Err, rs.UnitsResolved)
	}
	// Nothing the index of keys or the graph reads changed: both are
	// the served generation's.
	if renamed := store.Current(); renamed == served || renamed.keys != served.keys || renamed.graph.g != served.graph.g {
		t.Error("an owner renamed: the index of keys or the graph was made again")
	}
	encodings = 0
	if renamed := memos(); encodings != 0 || !maps.Equal(before, renamed) {
		t.Errorf("an owner renamed: %d datasets encoded again, want none", encodings)
	}
	// The alias grid moves to rec: the dataset naming it changes owner.
	testfs.Replace(t, dir, "owners.yaml", "aliases: [grid]}\n  - {id: rec, type: schema:NGO, name: REC}", "}\n  - {id: rec, type: schema:NGO, name: REC, aliases: [grid]}")
	if rs := reloadAndCompare(t, store, loader, false, "an alias moved"); rs.UnitsResolved != 1 {
		t.Fatalf("%v (%v), %d resolved; want the app resolved again", rs.Outcome, rs.Err, rs.UnitsResolved)
	}
	encodings = 0
	after := memos()
	if encodings != 1 {
		t.Errorf("%d datasets encoded again, want the one whose owner changed", encodings)
	}
	if before["datasets.gold.kept"] != after["datasets.gold.kept"] || before[""] != after[""] {
		t.Error("the encoding kept differs")
	}
	if before["datasets.gold.moved"] == after["datasets.gold.moved"] || !strings.Contains(after["datasets.gold.moved"], `"rec"`) {
		t.Errorf("the dataset whose owner changed serves %s", after["datasets.gold.moved"])
	}
}

// TestMemoConcurrent: readers asking at once for the encodings of an
// app's datasets, none asked for before (the app's table is made by
// whichever comes first, go test -race), each get their dataset's own,
// and it is kept: asking again encodes nothing.
func TestMemoConcurrent(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  k0: {title: t0}\n  k1: {title: t1}\n  k2: {title: t2}\n  k3: {title: t3}\n  'k*': {title: glob}\n",
	})
	loader := &Loader{Inputs: Inputs{Trees: []string{dir}}}
	store := NewStore(loader)
	if rs := reloadAndCompare(t, store, loader, true, "first load"); rs.Outcome != Activated {
		t.Fatalf("first load: %v %v", rs.Outcome, rs.Rejected)
	}
	var encodings atomic.Int32
	encode := func(d *Dataset) (*textPart, int64) {
		encodings.Add(1)
		return &textPart{text: "<" + d.ID() + ">"}, 1
	}
	app := store.Current().App("a")
	ds := append(app.Datasets(), app.Defaults())
	for round := range 2 {
		var wg sync.WaitGroup
		for i := range 8 {
			for _, d := range ds {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if got, _ := Memo(d, encode); got.text != "<"+d.ID()+">" {
						t.Errorf("reader %d of %q: %s, want <%s>", i, d.ID(), got.text, d.ID())
					}
				}()
			}
		}
		wg.Wait()
		if n := encodings.Swap(0); round == 0 && n < int32(len(ds)) || round == 1 && n != 0 {
			t.Errorf("round %d: %d encodings of %d datasets", round, n, len(ds))
		}
	}
}

// textPart is a kept part (Memo) of the tests: a text.
type textPart struct {
	Mark
	text string
}

// TestIDList holds a packed list of ids equal to the lists it packs, ids
// empty, long (a length of more than one varint byte) and not ASCII alike.
func TestIDList(t *testing.T) {
	long := strings.Repeat("x", 300)
	for _, ids := range [][]string{
		nil,
		{},
		{"owner-1"},
		{"a", "", "b", long, "ü-id"},
	} {
		l := newIDList(ids)
		got := slices.Collect(l.all())
		if !slices.Equal(got, ids) {
			t.Errorf("newIDList(%q).all() = %q", ids, got)
		}
		if !l.holds(ids) {
			t.Errorf("newIDList(%q).holds(itself) = false", ids)
		}
		for _, other := range [][]string{append(slices.Clone(ids), "more"), slices.Concat([]string{"first"}, ids)} {
			if l.holds(other) {
				t.Errorf("newIDList(%q).holds(%q) = true", ids, other)
			}
		}
		if len(ids) > 0 && l.holds(ids[:len(ids)-1]) {
			t.Errorf("newIDList(%q).holds(%q) = true", ids, ids[:len(ids)-1])
		}
	}
}

// TestNoteKeepsTheListAsked: a unit resolved again keeps the packed list
// of ids of the build it was resolved from when it asked the same ids,
// rather than pack another for every unit at every registry edit; when it
// asked others, its list is new.
func TestNoteKeepsTheListAsked(t *testing.T) {
	answers := newOwnerAnswers(nil)
	prev := newIDList([]string{"dso", "rec"})
	for _, tc := range []struct {
		asked []string
		kept  bool
	}{
		{[]string{"dso", "rec"}, true},
		{[]string{"dso"}, false},
		{[]string{"rec", "dso"}, false},
		{nil, false},
	} {
		b := &builtUnit{asked: prev, result: check.UnitResult{OwnersAsked: tc.asked}}
		b.note(answers)
		kept := unsafe.StringData(string(b.asked)) == unsafe.StringData(string(prev))
		if kept != tc.kept || !slices.Equal(slices.Collect(b.asked.all()), tc.asked) {
			t.Errorf("asked %q: list %q, kept %v; want kept %v", tc.asked, slices.Collect(b.asked.all()), kept, tc.kept)
		}
	}
}

// TestReadReleasesHashedFiles: a cold reading hashes every file and keeps
// none of their bytes; each unit reads its files again when it is
// checked, and a file changed since it was hashed fails the build with
// ErrInputsChanged rather than build a tree whose revision names other
// bytes. A file system whose identities cannot vouch for the bytes (an
// upload) keeps them.
func TestReadReleasesHashedFiles(t *testing.T) {
	tree := treegen.Generate(treegen.Options{Apps: 3, Sources: 20, Seed: 7, OverlayShare: -1})
	dir := t.TempDir()
	if err := tree.Write(dir); err != nil {
		t.Fatal(err)
	}
	loader := &Loader{Inputs: Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}}}
	ctx := context.Background()
	r, err := loader.read(ctx, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range r.plan.Units {
		if !u.Base.Deferred || u.Base.Data != nil {
			t.Errorf("%s: its bytes were kept after hashing", u.App)
		}
	}
	g, err := loader.build(ctx, r, nil, 2, false)
	r.close()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(g.snap.Apps()); n != 3 {
		t.Fatalf("%d apps built, want 3", n)
	}

	r, err = loader.read(ctx, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	testfs.Replace(t, dir, "apps/app_001/governance.yaml", "expose: true", "expose: false")
	_, err = loader.build(ctx, r, nil, 2, false)
	r.close()
	if !errors.Is(err, ErrInputsChanged) || !strings.Contains(fmt.Sprint(err), "app_001/governance.yaml") {
		t.Errorf("a file changed after it was hashed: %v, want ErrInputsChanged naming the file", err)
	}

	upload := fstest.MapFS{}
	for name, data := range tree.Files {
		upload[name] = &fstest.MapFile{Data: data}
	}
	up := &Loader{Inputs: Inputs{Trees: []string{"."}}, FS: upload}
	r, err = up.read(ctx, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	for _, u := range r.plan.Units {
		if u.Base.Deferred || u.Base.Data == nil {
			t.Errorf("%s: an upload's bytes were let go", u.App)
		}
	}
}
