package snapshot

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/testfs"
	"github.com/celine-eu/governanced/internal/treegen"
	"github.com/google/go-cmp/cmp"
)

// served is everything a client can read of a snapshot, body by body: the
// report, the app list, every app, and for every dataset its rule (with and
// without provenance), exposure and facet, and the resolution of a name only
// a glob matches.
func served(s *Snapshot) []string {
	out := []string{s.Revision, string(s.Report), string(s.AppsBody()), fmt.Sprint(s.Counts)}
	for _, a := range s.Apps() {
		out = append(out, string(s.AppBody(a)))
	}
	for _, d := range s.Datasets() {
		var buf bytes.Buffer
		s.AppendRuleBody(&buf, d.ID, d, false)
		s.AppendRuleBody(&buf, d.ID, d, true)
		s.AppendExposureBody(&buf, d.ID, d)
		buf.Write(d.Facet("test", true))
		if got, err := s.Resolve(strings.TrimSuffix(d.ID, "*") + "x"); err == nil {
			s.AppendRuleBody(&buf, d.ID+"x", got, true)
		} else {
			buf.WriteString(err.Error())
		}
		out = append(out, buf.String())
	}
	return out
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
		rs := store.Reload(st.force)
		if st.name == "a broken base" {
			if rs.Outcome != Rejected || rs.UnitsReused != st.reused || rs.UnitsBuilt != st.built {
				t.Fatalf("%s: %v, %d reused, %d built; want rejected, %d, %d", st.name, rs.Outcome, rs.UnitsReused, rs.UnitsBuilt, st.reused, st.built)
			}
			continue
		}
		if rs.Outcome != Activated {
			t.Fatalf("%s: %v (%v)", st.name, rs.Outcome, rs.Err)
		}
		if rs.UnitsReused != st.reused || rs.UnitsBuilt != st.built {
			t.Errorf("%s: %d reused, %d built; want %d, %d", st.name, rs.UnitsReused, rs.UnitsBuilt, st.reused, st.built)
		}
		cur := store.Current()
		fresh, err := (&Loader{Inputs: loader.Inputs}).Build()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(served(fresh), served(cur)); diff != "" {
			t.Errorf("%s: served (-fresh build +reload):\n%s", st.name, diff)
		}
		if prev != nil && st.sameAppsExcept != nil {
			for _, a := range cur.Apps() {
				rebuilt := strings.Contains(strings.Join(st.sameAppsExcept, ","), a.Name)
				if same := prev.App(a.Name) == a; same == rebuilt {
					t.Errorf("%s: app %s kept %v, want kept %v", st.name, a.Name, same, !rebuilt)
				}
			}
		}
		prev = cur
	}
}
