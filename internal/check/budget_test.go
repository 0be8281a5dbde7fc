package check

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/memfs"
	"github.com/celine-eu/governanced/internal/testmem"
)

// manyApps is a tree of apps apps, each declaring sources sources.
func manyApps(t testing.TB, apps, sources int) *memfs.FS {
	t.Helper()
	var b strings.Builder
	b.WriteString("defaults: {row_filters: []}\nsources:\n")
	for i := range sources {
		fmt.Fprintf(&b, "  s%d: {expose: true}\n", i)
	}
	doc := []byte(b.String())
	var fsys memfs.FS
	for i := range apps {
		if err := fsys.Add(fmt.Sprintf("apps/a%d/governance.yaml", i), doc); err != nil {
			t.Fatal(err)
		}
	}
	return &fsys
}

// TestRunHoldsNoServedRules: Run keeps each unit's findings and counts, not
// the rules it would serve: holding those, its memory would grow with every
// rule of the tree, and an upload's with every app it names. The check holds
// its inputs and one unit per worker.
func TestRunHoldsNoServedRules(t *testing.T) {
	if testing.Short() {
		t.Skip("checks 270,000 sources")
	}
	fsys := manyApps(t, 900, 300)
	var rep *Report
	var err error
	peak := testmem.PeakHeap(func() { rep, err = Run(context.Background(), Options{Paths: []string{"apps/*"}, FS: fsys}) })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Bases != 900 || rep.Summary.Datasets != 270_000 {
		t.Fatalf("checked %d bases, %d datasets", rep.Summary.Bases, rep.Summary.Datasets)
	}
	if peak > 100<<20 {
		t.Errorf("the check peaked at %d MB above its start; it holds what it should drop", peak>>20)
	}
	t.Logf("peak heap %d MB", peak>>20)
}

// TestBudget: a check over its budget stops with a *BudgetError: over
// Units before reading a file, over Sources or Values between units, long
// before the rest is read; a file over DocumentBytes is a load-error.
func TestBudget(t *testing.T) {
	fsys := manyApps(t, 200, 50)
	tests := []struct {
		name   string
		budget Budget
		what   string
		found  func(int) bool
	}{
		{"apps", Budget{Units: 199}, "apps", func(n int) bool { return n == 200 }},
		{"sources", Budget{Sources: 1000, Workers: 1}, "sources", func(n int) bool { return n == 1050 }},
		{"values", Budget{Values: 5000, Workers: 1}, "YAML values", func(n int) bool { return n > 5000 && n < 5000+300 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), Options{Paths: []string{"apps/*"}, FS: fsys, Budget: tt.budget})
			var be *BudgetError
			if !errors.As(err, &be) || be.What != tt.what || !tt.found(be.Found) {
				t.Fatalf("err = %v (%+v), want a budget error on %s", err, be, tt.what)
			}
		})
	}
	t.Run("within", func(t *testing.T) {
		rep, err := Run(context.Background(), Options{Paths: []string{"apps/*"}, FS: fsys, Budget: Budget{Units: 200, Sources: 10_000, Values: 100_000}})
		if err != nil || !rep.OK {
			t.Fatalf("%v %+v", err, rep.Summary)
		}
	})
	t.Run("unpaired overlays count", func(t *testing.T) {
		var f memfs.FS
		f.Add("apps/a/governance.yaml", []byte("defaults: {row_filters: []}\nsources: {}\n"))
		for i := range 50 {
			f.Add(fmt.Sprintf("apps/a/governance.x%d.yaml", i), []byte("sources: {a: {}, b: {}, c: {}}\n"))
		}
		_, err := Run(context.Background(), Options{Paths: []string{"apps/*"}, FS: &f, Budget: Budget{Sources: 100}})
		var be *BudgetError
		if !errors.As(err, &be) || be.What != "sources" {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("document bytes", func(t *testing.T) {
		rep, err := Run(context.Background(), Options{Paths: []string{"apps/a1"}, FS: fsys, Budget: Budget{DocumentBytes: 100}})
		if err != nil {
			t.Fatal(err)
		}
		if rep.OK || rep.Findings[0].Code != CodeLoadError || !strings.Contains(rep.Findings[0].Message, "more than the limit of 100") {
			t.Errorf("%+v", rep.Findings)
		}
	})
}
