package check_test

import (
	"context"
	"errors"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/check/checktest"
	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/testfs"
)

func caseDir(t *testing.T, id string) string { return checktest.CaseDir(t, id) }

// checked is a plan with its units checked, as a server builds from them.
func checked(t *testing.T, opts check.Options) (*check.Plan, []check.UnitResult) {
	t.Helper()
	p, err := check.NewPlan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	results, err := check.CheckUnits(context.Background(), p.Units)
	if err != nil {
		t.Fatal(err)
	}
	return p, results
}

// TestUnitsAreWhatIsServed holds the contract with the server: each unit's
// result carries its materialised configuration — overlay merged by the
// resolver merge, ownership names resolved after the merge — and the plan
// the merged registry, so that what is served is exactly what was checked.
func TestUnitsAreWhatIsServed(t *testing.T) {
	t.Run("merged with its overlay", func(t *testing.T) {
		p, results := checked(t, check.Options{Paths: []string{"apps/grid"}, Dir: caseDir(t, "C10")})
		if len(p.Units) != 1 || len(results) != 1 {
			t.Fatalf("%d units, %d results", len(p.Units), len(results))
		}
		u, res := p.Units[0], results[0]
		if u.App != "grid" || u.Base.Display != "apps/grid/governance.yaml" || len(u.Overlays) != 1 || res.Overlay != "apps/grid/governance.grid.yaml" {
			t.Errorf("unit %s %s with %d overlays, paired with %q", u.App, u.Base.Display, len(u.Overlays), res.Overlay)
		}
		if res.Config == nil {
			t.Fatal("not materialised")
		}
		rule, m := res.Config.Resolve("datasets.gold.x")
		if m.Kind != governance.MatchExact || rule.Expose != governance.False || !governance.DataspaceExpose(rule) {
			t.Errorf("resolved rule: expose %v, dataspace %v; want the overlay's expose: false over the base's offer", rule.Expose, rule.Dataspace)
		}
		if got := rule.Origin(governance.FieldExpose).Layer; got == nil || got.Kind != "overlay" || got.File != "apps/grid/governance.grid.yaml" {
			t.Errorf("expose provenance %+v, want the overlay", got)
		}
		if got := rule.Origin(governance.FieldDataspace).Layer; got == nil || got.Kind != "base" {
			t.Errorf("dataspace provenance %+v, want the base", got)
		}
		if diff := cmp.Diff([]string{"apps/grid/governance.yaml", "apps/grid/governance.grid.yaml"}, res.Config.Files); diff != "" {
			t.Errorf("files (-want +got):\n%s", diff)
		}
	})

	t.Run("owners resolved after the merge, leniently", func(t *testing.T) {
		dir := caseDir(t, "C48")
		for _, opts := range []check.Options{
			{Paths: []string{"apps/*"}, Owners: []string{"owners.yaml"}, PlaceholdersFile: str("deploy/placeholders.yaml"), Dir: dir},
			{Paths: []string{"apps/*"}, Owners: []string{"owners.yaml"}, Placeholders: map[string]string{"operator": "example-dso", "community": "example-community"}, Dir: dir},
		} {
			p, results := checked(t, opts)
			if p.Registry == nil || p.Registry.Len() != 2 {
				t.Fatalf("registry %v, want the two owners of owners.yaml", p.Registry)
			}
			if diff := cmp.Diff(map[string]string{"operator": "example-dso", "community": "example-community"}, p.Placeholders); diff != "" {
				t.Errorf("placeholders (-want +got):\n%s", diff)
			}
			cfg := results[0].Config
			for key, want := range map[string]string{"datasets.gold.grid": "example-dso", "datasets.gold.community": "community"} {
				r, _ := cfg.Resolve(key)
				if len(r.Ownership()) != 1 || r.Ownership()[0].Name != want {
					t.Errorf("%s: ownership %+v, want %s", key, r.Ownership(), want)
				}
			}
			if diff := cmp.Diff([]string{"operator", "example-dso", "community", "example-community"}, results[0].OwnersAsked); diff != "" {
				t.Errorf("owners asked (-want +got):\n%s", diff)
			}
			rep := p.Report(results)
			if len(rep.Findings) != 1 || rep.Findings[0].Code != check.CodeOwnerUnresolved {
				t.Errorf("findings %v, want the one owner-unresolved of C48", checktest.Briefs(rep))
			}
		}
	})

	t.Run("not materialised", func(t *testing.T) {
		p, results := checked(t, check.Options{Paths: []string{"apps/*"}, OverlayDir: str("deploy/overlays"), Dir: caseDir(t, "C13")})
		if res := results[0]; res.Config != nil || p.Units[0].App != "grid" || res.Overlay != "" {
			t.Errorf("unit %+v: an overlay conflict is not served", res)
		}
		if !p.Report(results).HasErrors() {
			t.Error("HasErrors is false for a report with an error")
		}
	})
}

// TestUsageErrors holds check.md §2.2: exactly the option combinations that
// cannot describe a check are errors, and they are *check.UsageError.
func TestUsageErrors(t *testing.T) {
	dir := caseDir(t, "C01")
	for _, tc := range []struct {
		name string
		opts check.Options
	}{
		{"no paths", check.Options{}},
		{"empty overlay name", check.Options{Paths: []string{"apps/*"}, OverlayName: str("")}},
		{"overlay name with a slash", check.Options{Paths: []string{"apps/*"}, OverlayName: str("a/b")}},
		{"overlay name ..", check.Options{Paths: []string{"apps/*"}, OverlayName: str("..")}},
		{"dataspace without owners", check.Options{Paths: []string{"apps/*"}, Dataspace: true}},
		{"placeholders file without owners", check.Options{Paths: []string{"apps/*"}, PlaceholdersFile: str("p.yaml")}},
		{"placeholders map without owners", check.Options{Paths: []string{"apps/*"}, Placeholders: map[string]string{}}},
		{"placeholders twice", check.Options{Paths: []string{"apps/*"}, Owners: []string{"o.yaml"}, PlaceholdersFile: str("p.yaml"), Placeholders: map[string]string{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Dir = dir
			rep, err := check.Run(context.Background(), tc.opts)
			var ue *check.UsageError
			if !errors.As(err, &ue) || rep != nil {
				t.Errorf("got report %v, err %v; want a usage error and no report", rep != nil, err)
			}
		})
	}
	// Anything about the files is a finding, never an error.
	rep, err := check.Run(context.Background(), check.Options{Paths: []string{"nope"}, Owners: []string{"nope.yaml"}, Dataspace: true, OverlayDir: str("nope"), Dir: dir})
	if err != nil || rep.OK {
		t.Fatalf("missing inputs: err %v, ok %v; want a failing report", err, rep != nil && rep.OK)
	}
}

// TestSharedOverlay: an overlay in the overlay directory serves every base
// of its app name; each unit checks it, and the report names each of its
// findings once.
func TestSharedOverlay(t *testing.T) {
	base := "defaults: {row_filters: []}\nsources:\n  datasets.gold.x: {expose: true, row_filters: [{handler: rec_registry, args: {column: device_id}}]}\n"
	dir := testfs.Tree(t, map[string]string{
		"one/apps/grid/governance.yaml": base,
		"two/apps/grid/governance.yaml": base,
		"overlays/governance.grid.yaml": "sources:\n  datasets.gold.x: {row_filters: [{handler: nosuch}]}\n",
	})
	opts := check.Options{Paths: []string{"one/apps/grid", "two/apps/grid"}, OverlayDir: str("overlays"), Dir: dir}
	p, results := checked(t, opts)
	if len(results) != 2 || results[0].Overlay != "overlays/governance.grid.yaml" || results[1].Overlay != results[0].Overlay {
		t.Fatalf("results %+v, want both bases paired with the one overlay", results)
	}
	rep := p.Report(results)
	if diff := cmp.Diff([]string{"error row-filter-unknown-handler overlays/governance.grid.yaml 2:45 /sources/datasets.gold.x/row_filters/0/handler datasets.gold.x nosuch"}, checktest.Briefs(rep)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	checktest.SameInMemory(t, opts, rep)
}

// TestContextEndsTheCheck: a check whose context ends stops taking units
// and says why.
func TestContextEndsTheCheck(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := check.Run(ctx, check.Options{Paths: []string{"apps/*"}, Dir: caseDir(t, "C01")}); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

func str(s string) *string { return &s }

// TestRootedFS: a file system laid out as the root directory names its
// files by absolute paths, as the operating system's files are named; any
// other file system has no absolute paths.
func TestRootedFS(t *testing.T) {
	fsys := fstest.MapFS{
		"srv/gov/apps/a/governance.yaml": {Data: []byte("defaults: {row_filters: []}\nsources: {x: {}}\n")},
		"srv/gov/owners.yaml":            {Data: []byte("owners:\n  - {id: o, type: schema:NGO, name: O, url: https://o.example}\n")},
	}
	opts := check.Options{FS: fsys, Rooted: true, Paths: []string{"/srv/gov/apps/*"}, Owners: []string{"/srv/gov/owners.yaml"}}
	p, results := checked(t, opts)
	if len(p.Units) != 1 || p.Units[0].Base.Display != "/srv/gov/apps/a/governance.yaml" || p.Units[0].Base.Name != "srv/gov/apps/a/governance.yaml" || results[0].Config == nil {
		t.Fatalf("units %+v: want /srv/gov/apps/a/governance.yaml, named srv/gov/apps/a/governance.yaml, materialised", p.Units)
	}
	if rep := p.Report(results); rep.HasErrors() {
		t.Errorf("report %+v", rep.Findings)
	}
	opts.Rooted = false
	rep, err := check.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Bases != 0 || !rep.HasErrors() {
		t.Errorf("without Rooted an absolute path named %d bases (errors %d); want none, and path-no-match", rep.Summary.Bases, rep.Summary.Errors)
	}
}
