package snapshot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/testfs"
)

// servedDisk lays out a disk as a deployment holds its inputs, some inside
// the tree served and some outside it, and returns the path of a name on
// it: srv/tree (app a with an overlay beside it, a directory that is not
// an app, an owners registry, an overlay directory and placeholders),
// srv/single (one governance.yaml), srv/other (app b and an overlay that
// pairs with nothing), x/tree (a second tree named tree), and etc/ (owners
// registries, placeholders, overlay directories, one named like the apps
// and one empty).
func servedDisk(t *testing.T) (at func(name string) string) {
	t.Helper()
	const base, registry = "defaults: {}\nsources:\n  datasets.x.y: {}\n", "owners:\n  - {id: acme, type: schema:Organization, name: Acme, url: https://acme.example}\n"
	disk := testfs.Tree(t, map[string]string{
		"srv/tree/apps/a/governance.yaml":        base,
		"srv/tree/apps/a/governance.prod.yaml":   "defaults: {access_level: restricted}\n",
		"srv/tree/apps/docs/README.md":           "not an app\n",
		"srv/tree/owners.yaml":                   registry,
		"srv/tree/deploy/placeholders.yaml":      "{}\n",
		"srv/tree/deploy/governance.a.yaml":      "defaults: {tags: [deploy]}\n",
		"srv/single/governance.yaml":             base,
		"srv/other/apps/b/governance.yaml":       base,
		"srv/other/apps/b/governance.other.yaml": "defaults: {tags: [unpaired]}\n",
		"x/tree/apps/c/governance.yaml":          base,
		"etc/governanced/owners.yaml":            registry,
		"etc/more/owners.yaml":                   registry,
		"etc/placeholders.yaml":                  "{}\n",
		"etc/apps/governance.a.yaml":             base,
		"etc/overlays/governance.a.yaml":         base,
		"etc/empty/.keep":                        "",
	})
	return func(name string) string { return filepath.Join(disk, name) }
}

// TestServedNames: every input is named by where it is in the tree served,
// or by its own name when it lies outside every tree, never by where it
// lies on the disk.
func TestServedNames(t *testing.T) {
	at := servedDisk(t)
	type want struct {
		paths, owners            []string
		overlayDir, placeholders string
		trees                    []string
	}
	for _, tc := range []struct {
		name string
		in   Inputs
		want want
	}{
		{"one tree of apps", Inputs{Trees: []string{at("srv/tree")}},
			want{paths: []string{"apps/*"}, trees: []string{"."}}},
		{"the same tree named from its working directory", Inputs{Trees: []string{"."}, Dir: at("srv/tree")},
			want{paths: []string{"apps/*"}, trees: []string{"."}}},
		{"inputs inside the tree", Inputs{Trees: []string{at("srv/tree")}, Owners: []string{at("srv/tree/owners.yaml")},
			OverlayDir: at("srv/tree/deploy"), Placeholders: at("srv/tree/deploy/placeholders.yaml")},
			want{paths: []string{"apps/*"}, trees: []string{"."}, owners: []string{"owners.yaml"}, overlayDir: "deploy", placeholders: "deploy/placeholders.yaml"}},
		{"inputs outside it, by their own names", Inputs{Trees: []string{at("srv/tree")}, Owners: []string{at("etc/governanced/owners.yaml"), at("etc/more/owners.yaml"), at("etc/governanced/owners.yaml")},
			OverlayDir: at("etc/overlays"), Placeholders: at("etc/placeholders.yaml")},
			want{paths: []string{"apps/*"}, trees: []string{"."}, owners: []string{"owners.yaml", "more/owners.yaml", "owners.yaml"}, overlayDir: "overlays", placeholders: "placeholders.yaml"}},
		{"an overlay directory named like the apps", Inputs{Trees: []string{at("srv/tree")}, OverlayDir: at("etc/apps")},
			want{paths: []string{"apps/*"}, trees: []string{"."}, overlayDir: "etc/apps"}},
		{"a tree of one governance.yaml", Inputs{Trees: []string{at("srv/single")}, Owners: []string{at("etc/governanced/owners.yaml")}},
			want{paths: []string{"single"}, trees: []string{"single"}, owners: []string{"owners.yaml"}}},
		{"a tree of one governance.yaml, named", Inputs{Trees: []string{at("srv/single")}, TreeName: "weather"},
			want{paths: []string{"weather"}, trees: []string{"weather"}}},
		{"several trees, by their names", Inputs{Trees: []string{at("srv/tree"), at("srv/other"), at("srv/single")}, Owners: []string{at("srv/tree/owners.yaml"), at("etc/more/owners.yaml")}},
			want{paths: []string{"tree/apps/*", "other/apps/*", "single"}, trees: []string{"tree", "other", "single"}, owners: []string{"tree/owners.yaml", "owners.yaml"}}},
		{"a discovered file", Inputs{Base: at("srv/tree/apps/a/governance.yaml"), Owners: []string{at("etc/more/owners.yaml")}},
			want{paths: []string{"a/governance.yaml"}, trees: []string{"a"}, owners: []string{"owners.yaml"}}},
		{"a discovered file, named", Inputs{Base: at("srv/single/governance.yaml"), TreeName: "meters"},
			want{paths: []string{"meters/governance.yaml"}, trees: []string{"meters"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := tc.in.view(os.DirFS("/"), true)
			if err != nil {
				t.Fatal(err)
			}
			got := want{paths: v.paths, owners: v.owners, overlayDir: v.overlayDir, placeholders: v.placeholders, trees: v.trees}
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); d != "" {
				t.Errorf("served names (-want +got):\n%s", d)
			}
			for _, m := range v.mounts {
				if strings.Contains(m.Display, at("")) {
					t.Errorf("mount %q names the disk", m.Display)
				}
			}
			if len(tc.in.Trees) == 0 {
				return
			}
			// And the check reads them: no input is missing.
			rep, err := check.Run(context.Background(), tc.in.checkOptions(v, os.DirFS("/"), true))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rep.Findings {
				if f.Severity == check.Error {
					t.Errorf("%s", describe(f))
				}
			}
		})
	}
	t.Run("two trees of one name", func(t *testing.T) {
		in := Inputs{Trees: []string{at("srv/tree"), at("x/tree")}}
		_, err := (&Loader{Inputs: in}).Build(context.Background())
		var dup *DuplicateTreeError
		if !errors.As(err, &dup) || dup.Name != "tree" {
			t.Errorf("err %v, want a *DuplicateTreeError for tree", err)
		}
	})
}

// TestRevisionIsTheContent: the revision is a hash of the inputs as the
// tree sees them: the same files served from a copy and from behind a
// git-sync link, with their owners registry in different directories, have
// one revision and name their inputs alike; a byte or an option changes it.
func TestRevisionIsTheContent(t *testing.T) {
	files := map[string]string{
		"apps/a/governance.yaml":        "defaults: {row_filters: []}\nsources:\n  ds.a: {expose: true}\n",
		"apps/a/governance.a.yaml":      "defaults: {access_level: internal}\n",
		"apps/b/governance.yaml":        "defaults: {row_filters: []}\nsources:\n  ds.b: {}\n",
		"apps/b/governance.deploy.yaml": "defaults: {access_level: restricted}\n",
	}
	owners := "owners:\n  - {id: acme, type: schema:Organization, name: Acme, url: https://acme.example}\n"
	copyDir := t.TempDir()
	testfs.Write(t, copyDir, map[string]string{"owners.yaml": owners})
	for k, v := range files {
		testfs.Write(t, copyDir, map[string]string{"a/tree/" + k: v})
	}
	syncDir := t.TempDir()
	testfs.Write(t, syncDir, map[string]string{"config/owners.yaml": owners})
	for k, v := range files {
		testfs.Write(t, syncDir, map[string]string{"governance/.worktrees/0123abcd/" + k: v})
	}
	if err := os.Symlink(".worktrees/0123abcd", filepath.Join(syncDir, "governance/current")); err != nil {
		t.Fatal(err)
	}
	revision := func(in Inputs) (string, []InputFile) {
		t.Helper()
		rev, inputs, err := (&Loader{Inputs: in}).Revision(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return rev, inputs
	}
	copyIn := Inputs{Trees: []string{filepath.Join(copyDir, "a/tree")}, Owners: []string{filepath.Join(copyDir, "owners.yaml")}}
	syncIn := Inputs{Trees: []string{"governance/current"}, Owners: []string{"config/owners.yaml"}, Dir: syncDir}
	rc, ic := revision(copyIn)
	rs, is := revision(syncIn)
	if rc != rs {
		t.Errorf("a copy and a git-sync link: revisions %s and %s", rc, rs)
	}
	if d := cmp.Diff(ic, is); d != "" {
		t.Errorf("inputs (-copy +git-sync):\n%s", d)
	}
	wantPaths := []string{"apps/a/governance.a.yaml", "apps/a/governance.yaml", "apps/b/governance.deploy.yaml", "apps/b/governance.yaml", "owners.yaml"}
	var paths []string
	for _, f := range ic {
		paths = append(paths, f.Path)
	}
	if d := cmp.Diff(wantPaths, paths); d != "" {
		t.Errorf("inputs (-want +got):\n%s", d)
	}

	for _, change := range []struct {
		name string
		in   func(Inputs) Inputs
	}{
		{"an overlay name", func(in Inputs) Inputs { in.OverlayName = "deploy"; return in }},
		{"--dataspace", func(in Inputs) Inputs { in.Dataspace = true; return in }},
		{"--strict", func(in Inputs) Inputs { in.Strict = true; return in }},
		{"bases unchanged", func(in Inputs) Inputs { in.NoInferFromDir = true; return in }},
		{"no owners", func(in Inputs) Inputs { in.Owners = nil; return in }},
	} {
		if r, _ := revision(change.in(copyIn)); r == rc {
			t.Errorf("%s: the revision did not change", change.name)
		}
	}
	testfs.Append(t, copyDir, "a/tree/apps/b/governance.yaml", "# a comment\n")
	if r, _ := revision(copyIn); r == rc {
		t.Error("a byte more: the revision did not change")
	}
}

// TestStrictRejectsWarnings: with Strict a reload whose check warns is
// rejected, as `governanced validate --strict` fails it.
func TestStrictRejectsWarnings(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"apps/a/governance.yaml": "defaults: {}\nsources:\n  ds.a: {expose: true}\n", // row-policy-undeclared: a warning
	})
	for _, strict := range []bool{false, true} {
		st := NewStore(&Loader{Inputs: Inputs{Trees: []string{dir}, Strict: strict}}).Reload(context.Background(), true)
		switch {
		case !strict && st.Outcome != Activated:
			t.Errorf("not strict: %v (%v)", st.Outcome, st.Err)
		case strict && (st.Outcome != Rejected || len(st.Rejected.Problems) == 0 || !strings.Contains(st.Rejected.Problems[0], "warning: row-policy-undeclared")):
			t.Errorf("strict: %v (%v), problems %v", st.Outcome, st.Err, st.Rejected)
		}
	}
}
