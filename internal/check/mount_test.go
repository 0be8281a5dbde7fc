package check_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/testfs"
)

// rooted is an absolute path's name in the root file system.
func rooted(p string) string { return strings.TrimPrefix(filepath.ToSlash(p), "/") }

// TestMountsNameWhatTheyHold checks a tree, an overlay directory and an
// owners file kept in three places on disk under the names a server gives
// them: every file of the report is named by its mount, none by where it
// lies, and the check finds what it finds with the real paths.
func TestMountsNameWhatTheyHold(t *testing.T) {
	disk := t.TempDir()
	testfs.Write(t, disk, map[string]string{
		"srv/tree/apps/grid/governance.yaml":     "sources:\n  datasets.gold.x:\n    expose: true\n    row_filters: []\n",
		"srv/tree/apps/grid/governance.bad.yaml": "sources: [\n",
		"etc/overlays/governance.grid.yaml":      "defaults:\n  access_level: internal\n",
		"etc/registry/owners.yaml":               "owners: nope\n",
	})
	mounts := []check.Mount{
		{Display: ".", Name: rooted(filepath.Join(disk, "srv/tree"))},
		{Display: "overlays", Name: rooted(filepath.Join(disk, "etc/overlays"))},
		{Display: "owners.yaml", Name: rooted(filepath.Join(disk, "etc/registry/owners.yaml"))},
	}
	direct, err := check.Run(context.Background(), check.Options{
		Paths:      []string{filepath.Join(disk, "srv/tree/apps/*")},
		OverlayDir: str(filepath.Join(disk, "etc/overlays")),
		Owners:     []string{filepath.Join(disk, "etc/registry/owners.yaml")},
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := check.Run(context.Background(), check.Options{
		Paths: []string{"apps/*"}, OverlayDir: str("overlays"), Owners: []string{"owners.yaml"}, Mounts: mounts,
	})
	if err != nil {
		t.Fatal(err)
	}
	type seen struct{ Code, File string }
	var got, want []seen
	for _, f := range rep.Findings {
		got = append(got, seen{f.Code, f.File})
		if strings.Contains(f.Message, disk) {
			t.Errorf("%s: the message names the disk: %s", f.Code, f.Message)
		}
	}
	for _, f := range direct.Findings {
		file := strings.TrimPrefix(f.File, disk+"/")
		file = strings.TrimPrefix(file, "srv/tree/")
		file = strings.Replace(file, "etc/overlays", "overlays", 1)
		file = strings.Replace(file, "etc/registry/", "", 1)
		want = append(want, seen{f.Code, file})
	}
	if len(want) == 0 {
		t.Fatal("the tree was meant to have findings")
	}
	// The names sort otherwise than the disk's.
	byName := func(a, b seen) int { return strings.Compare(a.File+a.Code, b.File+b.Code) }
	slices.SortFunc(want, byName)
	slices.SortFunc(got, byName)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings by their mounted names (-from the disk's names +got):\n%s", diff)
	}
	if rep.Summary != direct.Summary {
		t.Errorf("summary %+v, read from the disk's names %+v", rep.Summary, direct.Summary)
	}

	t.Run("a path under no mount names nothing", func(t *testing.T) {
		rep, err := check.Run(context.Background(), check.Options{Paths: []string{"elsewhere/governance.yaml"}, Mounts: mounts[1:]})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Findings) != 1 || rep.Findings[0].Code != check.CodePathNoMatch {
			t.Errorf("findings %+v, want one path-no-match", rep.Findings)
		}
	})
	t.Run("no climbing out of a mount", func(t *testing.T) {
		rep, err := check.Run(context.Background(), check.Options{Paths: []string{"overlays/../../srv/tree/apps/grid"}, Mounts: mounts[1:]})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Summary.Bases != 0 {
			t.Errorf("%d bases read through .. out of a mount", rep.Summary.Bases)
		}
	})
	t.Run("a mount that cannot be one", func(t *testing.T) {
		for _, m := range []check.Mount{{Display: "/abs", Name: "x"}, {Display: "../up", Name: "x"}, {Display: "a", Name: "/x"}} {
			_, err := check.Run(context.Background(), check.Options{Paths: []string{"a"}, Mounts: []check.Mount{m}})
			if _, ok := err.(*check.UsageError); !ok {
				t.Errorf("mount %+v: error %v, want a usage error", m, err)
			}
		}
	})
}

// TestNoInferFromDir is the library's from_file_with_override with
// infer_from_dir=False: without an overlay name a base is served as it is,
// and the overlay named after its directory is reported unused; an overlay
// name still pairs, and so does the overlay directory.
func TestNoInferFromDir(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"apps/grid/governance.yaml":      "defaults:\n  access_level: open\n",
		"apps/grid/governance.grid.yaml": "defaults:\n  access_level: internal\n",
		"apps/grid/governance.prod.yaml": "defaults:\n  access_level: restricted\n",
		"overlays/governance.grid.yaml":  "defaults:\n  access_level: internal\n",
	})
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		opts    check.Options
		overlay string // what the unit is paired with
		unused  []string
	}{
		{"inferred", check.Options{}, "apps/grid/governance.grid.yaml", []string{"apps/grid/governance.prod.yaml"}},
		{"base unchanged", check.Options{NoInferFromDir: true}, "", []string{"apps/grid/governance.grid.yaml", "apps/grid/governance.prod.yaml"}},
		{"base unchanged, an overlay name", check.Options{NoInferFromDir: true, OverlayName: str("prod")}, "apps/grid/governance.prod.yaml", []string{"apps/grid/governance.grid.yaml"}},
		{"base unchanged, an overlay directory", check.Options{NoInferFromDir: true, OverlayDir: str("overlays")}, "overlays/governance.grid.yaml", []string{"apps/grid/governance.grid.yaml", "apps/grid/governance.prod.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.Paths, opts.Dir = []string{"apps/*"}, dir
			p, results := checked(t, opts)
			if len(results) != 1 {
				t.Fatalf("%d units", len(results))
			}
			if results[0].Overlay != tc.overlay {
				t.Errorf("paired with %q, want %q", results[0].Overlay, tc.overlay)
			}
			rep := p.Report(results)
			var unused []string
			for _, f := range rep.Findings {
				if f.Code == check.CodeOverlayUnused {
					unused = append(unused, f.File)
				}
			}
			if diff := cmp.Diff(tc.unused, unused); diff != "" {
				t.Errorf("overlay-unused (-want +got):\n%s", diff)
			}
			if rep.Inputs.InferFromDir == tc.opts.NoInferFromDir {
				t.Errorf("inputs.infer_from_dir %v with NoInferFromDir %v", rep.Inputs.InferFromDir, tc.opts.NoInferFromDir)
			}
		})
	}
}
