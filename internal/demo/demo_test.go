package demo

import (
	"context"
	"io/fs"
	"testing"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/governance"
)

// TestDemoTreeChecksClean: the tree a first run serves passes the check with
// no finding at all, so nobody's first impression is a warning.
func TestDemoTreeChecksClean(t *testing.T) {
	rep, err := check.Run(context.Background(), check.Options{Paths: []string{"apps/*"}, Owners: []string{OwnersFile}, FS: FS(), Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || len(rep.Findings) != 0 {
		t.Fatalf("the demo tree has findings: %+v", rep.Findings)
	}
	if rep.Summary.Bases != 3 || rep.Summary.Overlays != 1 {
		t.Errorf("summary %+v, want 3 bases and 1 overlay", rep.Summary)
	}
	globs := 0
	for _, name := range []string{"apps/meters/governance.yaml", "apps/weather/governance.yaml", "apps/grid/governance.yaml"} {
		data, err := fs.ReadFile(FS(), name)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := governance.Parse(data, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range cfg.Sources {
			if governance.HasMeta(s.Key) {
				globs++
			}
		}
	}
	if globs == 0 {
		t.Error("the demo tree shows no glob key")
	}
}

func TestFSHoldsTheTree(t *testing.T) {
	for _, name := range []string{"apps/meters/governance.yaml", "apps/meters/governance.meters.yaml", "apps/weather/governance.yaml", "apps/grid/governance.yaml", OwnersFile} {
		if _, err := fs.Stat(FS(), name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
