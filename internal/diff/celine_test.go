package diff

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/testcorpus"
)

// celineTree is the real CELINE tree with dataset-api's owners registry.
func celineTree(t *testing.T) files {
	t.Helper()
	apps := testcorpus.ReferenceApps(t)
	fs := files{}
	for _, p := range apps {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fs["apps/"+filepath.Base(filepath.Dir(p))+"/governance.yaml"] = string(b)
	}
	b, err := os.ReadFile(testcorpus.Path(t, "reference/dataset-api/owners.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	fs["owners.yaml"] = string(b)
	return fs
}

func TestCELINEAgainstItself(t *testing.T) {
	tree := celineTree(t)
	rep := compareFiles(t, tree, tree)
	if !rep.Empty() || len(rep.Kinds) != 0 {
		t.Errorf("the CELINE tree against itself: %v", lines(rep))
	}
	if rep.Head.Datasets == 0 || rep.Head.Apps != 17 {
		t.Errorf("the head holds %d apps and %d datasets: the tree was not checked as served", rep.Head.Apps, rep.Head.Datasets)
	}
}

// TestCELINEDefaultsEdit: a one-line edit to one app's defaults changes
// exactly the datasets of that app that inherit the field — those whose own
// block does not state it — and nothing else.
func TestCELINEDefaultsEdit(t *testing.T) {
	base := celineTree(t)
	cases := []struct {
		app, old, new string
		field         governance.Field
		kind          string
		oldJSON       string
		newJSON       string
	}{
		{app: "mt", old: "  license: CC-BY-4.0\n", new: "  license: CC-BY-SA-4.0\n", field: governance.FieldLicense,
			kind: "licence-changed", oldJSON: `"CC-BY-4.0"`, newJSON: `"CC-BY-SA-4.0"`},
		{app: "copernicus", old: "  access_level: internal\n", new: "  access_level: open\n", field: governance.FieldAccessLevel,
			kind: "access-level-lowered", oldJSON: `"internal"`, newJSON: `"open"`},
	}
	for _, c := range cases {
		t.Run(c.app, func(t *testing.T) {
			file := "apps/" + c.app + "/governance.yaml"
			head := base.replace(t, file, c.old, c.new)
			rep := compareFiles(t, base, head)

			var want []string
			total := 0
			for _, a := range checkTree(t, base).Apps {
				if a.Name != c.app {
					continue
				}
				total = len(a.Config.Sources)
				for _, s := range a.Config.Sources {
					if !s.Rule.Set.Has(c.field) {
						want = append(want, "changed "+c.app+" "+s.Key+" [field-changed "+c.kind+"]")
					}
				}
			}
			slices.Sort(want)
			if len(want) == 0 || len(want) == total {
				t.Fatalf("%d of %d %s datasets inherit %s: the edit does not tell inheriting datasets from the others", len(want), total, c.app, c.field.Key())
			}
			if d := cmp.Diff(want, lines(rep)); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
			line := 1 + strings.Count(base[file][:strings.Index(base[file], c.old)], "\n")
			for _, d := range rep.Datasets {
				f := d.Fields
				if len(f) != 1 || f[0].Field != c.field.Key() || string(f[0].Old) != c.oldJSON || string(f[0].New) != c.newJSON ||
					f[0].Origin == nil || f[0].Origin.File != file || f[0].Origin.Line != line || f[0].Origin.Layer != "defaults" {
					t.Errorf("%s: fields %+v, want %s %s → %s stated at %s:%d (defaults)", d.Dataset, f, c.field.Key(), c.oldJSON, c.newJSON, file, line)
				}
			}
		})
	}
}
