package snapshot

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/demo"
	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/testcorpus"
)

// servedTrees are the demo tree with its registry and the 17 real apps with
// dataset-api's registry.
func servedTrees(t *testing.T) map[string]*Snapshot {
	t.Helper()
	demoSnap, err := (&Loader{Inputs: Inputs{Trees: []string{"."}, Owners: []string{demo.OwnersFile}}, FS: demo.FS()}).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	real, err := (&Loader{Inputs: Inputs{Trees: []string{copyReal(t)}, Owners: []string{testcorpus.Path(t, "reference/dataset-api/owners.yaml")}}}).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Snapshot{"demo": demoSnap, "celine": real}
}

// TestOwnersWithoutMerging: the owners read without a merge are the merged
// rule's, and the index lists each dataset under each name it states.
func TestOwnersWithoutMerging(t *testing.T) {
	for name, s := range servedTrees(t) {
		want := map[string][]string{}
		for _, d := range s.Datasets() {
			if diff := cmp.Diff(d.Rule().Ownership(), d.Owners()); diff != "" {
				t.Errorf("%s %s: owners (-merged +read):\n%s", name, d.ID(), diff)
			}
			for _, o := range d.Rule().Ownership() {
				if k := d.App.Name + "/" + d.ID(); !slices.Contains(want[o.Name], k) {
					want[o.Name] = append(want[o.Name], k)
				}
			}
		}
		if len(want) == 0 {
			t.Fatalf("%s: no dataset names an owner", name)
		}
		got := map[string][]string{}
		for _, owner := range s.OwnershipNames() {
			for _, d := range s.OwnedBy(owner) {
				got[owner] = append(got[owner], d.App.Name+"/"+d.ID())
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: index (-want +got):\n%s", name, diff)
		}
		if !slices.IsSorted(s.OwnershipNames()) {
			t.Errorf("%s: names unsorted: %v", name, s.OwnershipNames())
		}
	}
}

// TestDemoOwnersResolve: the demo's generic name rec is served as the
// registry's id.
func TestDemoOwnersResolve(t *testing.T) {
	s := servedTrees(t)["demo"]
	if len(s.OwnedBy("example-rec")) == 0 || len(s.OwnedBy("rec")) != 0 {
		t.Errorf("example-rec owns %d, rec %d", len(s.OwnedBy("example-rec")), len(s.OwnedBy("rec")))
	}
}

// TestPage: a numbered page keeps what the filter keeps, in listing order,
// and counts all of it.
func TestPage(t *testing.T) {
	trees := servedTrees(t)
	s := trees["celine"]
	yes, no := true, false
	for _, tt := range []struct {
		name string
		f    Filter
		keep func(d *Dataset) bool
	}{
		{"all", Filter{}, func(*Dataset) bool { return true }},
		{"glob", Filter{Query: mustQuery(t, "*gold*")}, func(d *Dataset) bool { return governance.CompileGlob("*gold*").Match(d.ID()) }},
		{"not listed", Filter{Expose: &no}, func(d *Dataset) bool { return !d.Expose }},
		{"owner", Filter{Owner: s.OwnershipNames()[0]}, func(d *Dataset) bool {
			return slices.ContainsFunc(d.Rule().Ownership(), func(o governance.Owner) bool { return o.Name == s.OwnershipNames()[0] })
		}},
		{"glob and exposed", Filter{Query: mustQuery(t, "datasets.*"), Expose: &yes}, func(d *Dataset) bool {
			return governance.CompileGlob("datasets.*").Match(d.ID()) && d.Expose
		}},
	} {
		var want []*Dataset
		for _, d := range s.Datasets() {
			if tt.keep(d) {
				want = append(want, d)
			}
		}
		if len(want) == 0 || len(want) == len(s.Datasets()) && tt.name != "all" {
			t.Errorf("%s: the case keeps %d of %d: it tests nothing", tt.name, len(want), len(s.Datasets()))
			continue
		}
		for _, at := range [][2]int{{0, 10}, {5, 3}, {len(want) - 1, 10}, {len(want), 10}, {0, 1000}} {
			items, total := s.Page(tt.f, at[0], at[1])
			if total != len(want) {
				t.Errorf("%s %v: total %d, want %d", tt.name, at, total, len(want))
			}
			end := min(at[0]+at[1], len(want))
			if !slices.Equal(datasetsOf(items), want[at[0]:end]) {
				t.Errorf("%s %v: %d items, want %d", tt.name, at, len(items), end-at[0])
			}
		}
	}
	// The real files offer nothing into the dataspace; the demo does.
	items, total := trees["demo"].Page(Filter{DataspaceExpose: &yes}, 0, 10)
	if total != 1 || len(items) != 1 || items[0].Dataset.ID() != "datasets.demo_gold.community_energy_daily" {
		t.Errorf("the demo's offers: %d, %v", total, items)
	}
}

func mustQuery(t testing.TB, text string) *Query {
	t.Helper()
	q, err := NewQuery(text)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func datasetsOf(hits []Hit) []*Dataset {
	out := make([]*Dataset, len(hits))
	for i, h := range hits {
		out[i] = h.Dataset
	}
	return out
}

// TestNameQuery: a glob query matches what its glob matches, its shortcut
// never refusing a key the glob accepts; text is contained.
func TestNameQuery(t *testing.T) {
	keys := []string{"datasets.ds_dev_gold.meters", "datasets.x_gold.y", "a*b", "a?b", "ab", "datasets.[x].gold", "gold", "", "ééé.gold"}
	for _, q := range []string{"*gold*", "datasets.*_gold.*", "a*b", "a?b", "a[*]b", "*.[x].*", "*[!a-z]*", "g?ld", "*é.g*", "[", "*[*", "gold", "a*", "?"} {
		nq := NewNameQuery(q)
		for _, k := range keys {
			want := strings.Contains(k, q)
			if governance.HasMeta(q) {
				want = governance.CompileGlob(q).Match(k)
			}
			if got := nq.Match(k); got != want {
				t.Errorf("%q on %q: %v, want %v", q, k, got, want)
			}
		}
	}
}

// FuzzNameQuery holds the shortcut to the glob it shortens.
func FuzzNameQuery(f *testing.F) {
	f.Add("datasets.*_gold.*", "datasets.ds_gold.meters")
	f.Add("a?*[b]c", "axbc")
	f.Add("*[!x]*", "yyy")
	f.Fuzz(func(t *testing.T, q, key string) {
		if !governance.HasMeta(q) {
			return
		}
		if got, want := NewNameQuery(q).Match(key), governance.CompileGlob(q).Match(key); got != want {
			t.Fatalf("%q on %q: %v, want %v", q, key, got, want)
		}
	})
}
