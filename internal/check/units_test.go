package check

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/testfs"
	"github.com/celine-eu/governanced/internal/yaml11"
	"github.com/google/go-cmp/cmp"
)

func caseDir(t *testing.T, id string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata/cases", id, "tree"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestUnitsAreWhatIsServed holds the contract with the server: the report
// carries each base's materialised configuration — overlay merged by the
// resolver merge, ownership names resolved after the merge — and the merged
// registry, so that what is served is exactly what was checked.
func TestUnitsAreWhatIsServed(t *testing.T) {
	t.Run("merged with its overlay", func(t *testing.T) {
		dir := caseDir(t, "C10")
		rep, err := CheckGovernance(Options{Paths: []string{"apps/grid"}, Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Units) != 1 {
			t.Fatalf("%d units", len(rep.Units))
		}
		u := rep.Units[0]
		want := Unit{App: "grid", Base: "apps/grid/governance.yaml", Overlay: "apps/grid/governance.grid.yaml",
			BaseFile: filepath.Join(dir, "apps/grid/governance.yaml"), OverlayFile: filepath.Join(dir, "apps/grid/governance.grid.yaml"),
			Materialized: true, Config: u.Config, BaseRoot: u.BaseRoot, OverlayRoot: u.OverlayRoot}
		if diff := cmp.Diff(want, u, cmp.Comparer(func(a, b *governance.Config) bool { return a == b }),
			cmp.Comparer(func(a, b *yaml11.Node) bool { return a == b })); diff != "" {
			t.Errorf("unit (-want +got):\n%s", diff)
		}
		// The loaded documents travel with the unit, so a server reads provenance
		// from the bytes that were checked.
		if u.BaseRoot.Get("sources") == nil || u.OverlayRoot.Get("sources") == nil {
			t.Errorf("unit documents: base %v, overlay %v; want both loaded", u.BaseRoot, u.OverlayRoot)
		}
		rule, m := u.Config.Resolve("datasets.gold.x")
		if m.Kind != governance.MatchExact || rule.Expose == nil || *rule.Expose || !governance.DataspaceExpose(rule) {
			t.Errorf("resolved rule: expose %v, dataspace %v; want the overlay's expose: false over the base's offer", rule.Expose, rule.Dataspace)
		}
		if got := rule.Origin(governance.FieldExpose).Layer; got == nil || got.Kind != "overlay" || got.File != "apps/grid/governance.grid.yaml" {
			t.Errorf("expose provenance %+v, want the overlay", got)
		}
		if got := rule.Origin(governance.FieldDataspace).Layer; got == nil || got.Kind != "base" {
			t.Errorf("dataspace provenance %+v, want the base", got)
		}
		if diff := cmp.Diff([]string{"apps/grid/governance.yaml", "apps/grid/governance.grid.yaml"}, u.Config.Files); diff != "" {
			t.Errorf("files (-want +got):\n%s", diff)
		}
	})

	t.Run("owners resolved after the merge, leniently", func(t *testing.T) {
		dir := caseDir(t, "C48")
		for _, opts := range []Options{
			{Paths: []string{"apps/*"}, Owners: []string{"owners.yaml"}, PlaceholdersFile: str("deploy/placeholders.yaml"), Dir: dir},
			{Paths: []string{"apps/*"}, Owners: []string{"owners.yaml"}, Placeholders: map[string]string{"operator": "example-dso", "community": "example-community"}, Dir: dir},
		} {
			rep, err := CheckGovernance(opts)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Owners == nil || rep.Owners.Len() != 2 {
				t.Fatalf("registry %v, want the two owners of owners.yaml", rep.Owners)
			}
			if diff := cmp.Diff(map[string]string{"operator": "example-dso", "community": "example-community"}, rep.Placeholders); diff != "" {
				t.Errorf("placeholders (-want +got):\n%s", diff)
			}
			cfg := rep.Units[0].Config
			for key, want := range map[string]string{"datasets.gold.grid": "example-dso", "datasets.gold.community": "community"} {
				r, _ := cfg.Resolve(key)
				if len(r.Ownership) != 1 || r.Ownership[0].Name != want {
					t.Errorf("%s: ownership %+v, want %s", key, r.Ownership, want)
				}
			}
			if len(rep.Findings) != 1 || rep.Findings[0].Code != CodeOwnerUnresolved {
				t.Errorf("findings %v, want the one owner-unresolved of C48", briefs(rep))
			}
		}
	})

	t.Run("not materialised", func(t *testing.T) {
		rep, err := CheckGovernance(Options{Paths: []string{"apps/*"}, OverlayDir: str("deploy/overlays"), Dir: caseDir(t, "C13")})
		if err != nil {
			t.Fatal(err)
		}
		if u := rep.Units[0]; u.Materialized || u.Config != nil || u.App != "grid" {
			t.Errorf("unit %+v: an overlay conflict is not served", u)
		}
		if !rep.HasErrors() {
			t.Error("HasErrors is false for a report with an error")
		}
	})
}

// TestUsageErrors holds check.md §2.2: exactly the option combinations that
// cannot describe a check are errors, and they are *UsageError.
func TestUsageErrors(t *testing.T) {
	dir := caseDir(t, "C01")
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"no paths", Options{}},
		{"empty overlay name", Options{Paths: []string{"apps/*"}, OverlayName: str("")}},
		{"overlay name with a slash", Options{Paths: []string{"apps/*"}, OverlayName: str("a/b")}},
		{"overlay name ..", Options{Paths: []string{"apps/*"}, OverlayName: str("..")}},
		{"dataspace without owners", Options{Paths: []string{"apps/*"}, Dataspace: true}},
		{"placeholders file without owners", Options{Paths: []string{"apps/*"}, PlaceholdersFile: str("p.yaml")}},
		{"placeholders map without owners", Options{Paths: []string{"apps/*"}, Placeholders: map[string]string{}}},
		{"placeholders twice", Options{Paths: []string{"apps/*"}, Owners: []string{"o.yaml"}, PlaceholdersFile: str("p.yaml"), Placeholders: map[string]string{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Dir = dir
			rep, err := CheckGovernance(tc.opts)
			var ue *UsageError
			if !errors.As(err, &ue) || rep != nil {
				t.Errorf("got report %v, err %v; want a usage error and no report", rep != nil, err)
			}
		})
	}
	// Anything about the files is a finding, never an error.
	rep, err := CheckGovernance(Options{Paths: []string{"nope"}, Owners: []string{"nope.yaml"}, Dataspace: true, OverlayDir: str("nope"), Dir: dir})
	if err != nil || rep.OK {
		t.Fatalf("missing inputs: err %v, ok %v; want a failing report", err, rep != nil && rep.OK)
	}
}

// TestOnUnitSharedOverlay: an overlay in the overlay directory serves every
// base of its app name; letting go of documents (OnUnit) must wait for the
// last of them, and the report must not change.
func TestOnUnitSharedOverlay(t *testing.T) {
	base := "defaults: {row_filters: []}\nsources:\n  datasets.gold.x: {expose: true, row_filters: [{handler: rec_registry, args: {column: device_id}}]}\n"
	dir := testfs.Tree(t, map[string]string{
		"one/apps/grid/governance.yaml": base,
		"two/apps/grid/governance.yaml": base,
		"overlays/governance.grid.yaml": "sources:\n  datasets.gold.x: {row_filters: [{handler: nosuch}]}\n",
	})
	overlays := "overlays"
	for _, workers := range []int{1, 2} {
		opts := Options{Paths: []string{"one/apps/grid", "two/apps/grid"}, OverlayDir: &overlays, Dir: dir, Workers: workers}
		rep, err := CheckGovernance(opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Units) != 2 || rep.Units[0].Overlay != "overlays/governance.grid.yaml" || rep.Units[1].Overlay != rep.Units[0].Overlay {
			t.Fatalf("units %+v, want both bases paired with the one overlay", rep.Units)
		}
		sameWithOnUnit(t, opts, rep)
		sameWithMemo(t, opts, rep)
	}
}
