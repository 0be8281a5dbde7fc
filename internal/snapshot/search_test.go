package snapshot

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/search"
	"github.com/celine-eu/governanced/internal/testfs"
)

func ids(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Dataset.App.Name + "/" + h.Dataset.ID()
	}
	return out
}

func searchAll(t testing.TB, s *Snapshot, text string, f Filter) []Hit {
	t.Helper()
	f.Query = mustQuery(t, text)
	hits, total := s.Page(f, 0, 1<<30)
	if total != len(hits) {
		t.Fatalf("%q: total %d, %d hits", text, total, len(hits))
	}
	return hits
}

// TestSearchRealTree: what a data steward knows of a dataset of the real
// pipelines finds it: a title's words, a tag, an owner's name in
// dataset-api's registry.
func TestSearchRealTree(t *testing.T) {
	s := servedTrees(t)["celine"]

	t.Run("a title's words", func(t *testing.T) {
		hits := searchAll(t, s, "Wind Gust", Filter{})
		got := ids(hits)
		want := []string{"dwd/datasets.ds_dev_gold.dwd_icon_d2_gusts", "om/datasets.ds_dev_gold.om_wind_gusts"}
		if len(got) < 2 || !slices.Equal(slices.Sorted(slices.Values(got[:2])), want) {
			t.Errorf("first %q, want the two gust datasets %q", got, want)
		}
		for _, h := range hits[:2] {
			if !h.Found.Fields.Has(search.Title) {
				t.Errorf("%s found in %v, not its title", h.Dataset.ID(), h.Found.Fields)
			}
		}
		// In any order, any case.
		if diff := cmp.Diff(got, ids(searchAll(t, s, "gust WIND", Filter{}))); diff != "" {
			t.Errorf("gust WIND (-Wind Gust +gust WIND):\n%s", diff)
		}
	})

	t.Run("a tag", func(t *testing.T) {
		hits := searchAll(t, s, "icon-d2", Filter{})
		var tagged []string
		for _, d := range s.Datasets() {
			if slices.Contains(d.Rule().Tags(), "icon-d2") {
				tagged = append(tagged, d.App.Name+"/"+d.ID())
			}
		}
		if len(tagged) == 0 || len(hits) < len(tagged) {
			t.Fatalf("%d datasets tagged icon-d2, %d found", len(tagged), len(hits))
		}
		// The tagged ones first (their keys and titles say it too), then
		// those whose description mentions the model.
		if got := ids(hits[:len(tagged)]); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(tagged))) {
			t.Errorf("first %q, want the tagged %q", got, tagged)
		}
		for _, h := range hits[len(tagged):] {
			if desc, ok := h.Dataset.Rule().Description(); !ok || !slices.Contains(search.Words(desc), "icon") || !slices.Contains(search.Words(desc), "d2") {
				t.Errorf("%s found, neither tagged nor described with icon-d2", h.Dataset.ID())
			}
		}
	})

	t.Run("an owner's name", func(t *testing.T) {
		hits := searchAll(t, s, "Spindox", Filter{})
		var owned []string
		for _, d := range s.OwnedBy("spxl") {
			owned = append(owned, d.App.Name+"/"+d.ID())
		}
		if len(owned) == 0 {
			t.Fatal("spxl owns nothing")
		}
		if diff := cmp.Diff(owned, ids(hits)); diff != "" {
			t.Errorf("Spindox (-owned by spxl +found):\n%s", diff)
		}
		for _, h := range hits {
			if h.Found.Fields != search.Owner {
				t.Errorf("%s found in %v", h.Dataset.ID(), h.Found.Fields)
			}
		}
	})

	t.Run("with the other filters", func(t *testing.T) {
		yes := true
		hits := searchAll(t, s, "Spindox", Filter{App: "mt", Expose: &yes})
		if len(hits) == 0 {
			t.Fatal("nothing")
		}
		for _, h := range hits {
			if h.Dataset.App.Name != "mt" || !h.Dataset.Expose {
				t.Errorf("%s of %s (expose %v) kept", h.Dataset.ID(), h.Dataset.App.Name, h.Dataset.Expose)
			}
		}
		owner := searchAll(t, s, "wind", Filter{Owner: "spxl"})
		for _, h := range owner {
			if !slices.ContainsFunc(h.Dataset.Owners(), func(o governance.Owner) bool { return o.Name == "spxl" }) {
				t.Errorf("%s kept by owner spxl", h.Dataset.ID())
			}
		}
	})

	t.Run("a key spelled out comes first", func(t *testing.T) {
		// Its words are those of datasets.ds_dev_raw.stg_dwd_icon_d2 too,
		// which comes first in the listing.
		hits := searchAll(t, s, "datasets.raw.dwd_icon_d2", Filter{})
		if len(hits) < 2 || hits[0].Dataset.ID() != "datasets.raw.dwd_icon_d2" {
			t.Errorf("found %q", ids(hits))
		}
	})

	t.Run("a glob is a glob over keys", func(t *testing.T) {
		hits := searchAll(t, s, "datasets.*_gold.dwd_*", Filter{})
		for _, h := range hits {
			if !governance.CompileGlob("datasets.*_gold.dwd_*").Match(h.Dataset.ID()) || h.Found.Fields != 0 {
				t.Errorf("%s found by the glob", h.Dataset.ID())
			}
		}
		if len(hits) == 0 {
			t.Error("the glob found nothing")
		}
	})
}

// TestSearchPages: a search's pages, by number or by cursor, put together
// are the whole ranked answer.
func TestSearchPages(t *testing.T) {
	s := servedTrees(t)["celine"]
	all := ids(searchAll(t, s, "weather", Filter{}))
	if len(all) < 10 {
		t.Fatalf("%d hits", len(all))
	}
	var paged, listed []string
	for off := 0; off < len(all); off += 7 {
		items, _ := s.Page(Filter{Query: mustQuery(t, "weather")}, off, 7)
		paged = append(paged, ids(items)...)
	}
	cursor := ""
	for {
		p, err := s.List(Filter{Query: mustQuery(t, "weather")}, 7, cursor)
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, ids(p.Items)...)
		if cursor = p.Next; cursor == "" {
			break
		}
	}
	if diff := cmp.Diff(all, paged); diff != "" {
		t.Errorf("numbered pages (-all +pages):\n%s", diff)
	}
	if diff := cmp.Diff(all, listed); diff != "" {
		t.Errorf("cursor pages (-all +pages):\n%s", diff)
	}
}

func TestNewQuery(t *testing.T) {
	for _, c := range []struct {
		text string
		glob bool
		err  error
	}{
		{"Wind Gust", false, nil},
		{"datasets.*", true, nil},
		{"a?b", true, nil},
		{"[ab]", true, nil},
		{"...", false, search.ErrNoWords},
		{strings.Repeat("w", 600), false, &search.QueryError{}},
	} {
		q, err := NewQuery(c.text)
		switch {
		case c.err != nil:
			var qe *search.QueryError
			if err == nil || !errors.Is(err, c.err) && !(errors.As(err, &qe) && errors.As(c.err, &qe)) {
				t.Errorf("%.20q: %v, want %T", c.text, err, c.err)
			}
		case err != nil:
			t.Errorf("%q: %v", c.text, err)
		case q.Glob() != c.glob || q.Text() != c.text || (q.Words() == nil) != c.glob:
			t.Errorf("%q: glob %v", c.text, q.Glob())
		}
	}
}

// TestSearchFollowsTheRegistry: when only the owners registry changes,
// the datasets of the apps naming the owners it changed are found by the
// new names and aliases and no longer by the old. Those apps' units are
// resolved again; as their names resolve to the same ids, every app is
// served as it was: an index holds no word the registry gives, a search
// reads them.
func TestSearchFollowsTheRegistry(t *testing.T) {
	registry := func(spxlName, otherAliases string) string {
		return "owners:\n" +
			"  - id: spxl\n    type: schema:Corporation\n    name: " + spxlName + "\n    aliases: [spx]\n" +
			"  - id: other\n    type: schema:NGO\n    name: Other Org\n    aliases: " + otherAliases + "\n" +
			"  - id: third\n    type: schema:NGO\n    name: Third Party\n"
	}
	// The alias wind's rule names moved to the third owner: wind's names
	// resolve to another id, and its app is built anew; solar names the
	// third owner, whose entry changed: resolved again, to the same ids.
	moved := "owners:\n" +
		"  - id: spxl\n    type: schema:Corporation\n    name: Acme Wind Labs\n" +
		"  - id: other\n    type: schema:NGO\n    name: Other Org\n    aliases: [gridco]\n" +
		"  - id: third\n    type: schema:NGO\n    name: Third Party\n    aliases: [spx]\n"
	dir := testfs.Tree(t, map[string]string{
		// Written as the alias: the served rule names the id.
		"apps/wind/governance.yaml":  "defaults: {}\nsources:\n  datasets.gold.gusts:\n    ownership: [{name: spx, type: DATA_OWNER}]\n  datasets.gold.calm: {}\n",
		"apps/grid/governance.yaml":  "defaults:\n  ownership: [{name: other, type: DATA_OWNER}]\nsources:\n  datasets.gold.lines: {}\n",
		"apps/solar/governance.yaml": "defaults: {}\nsources:\n  datasets.gold.panels:\n    ownership: [{name: third, type: DATA_OWNER}]\n",
		"owners.yaml":                registry("Spindox Labs srl", "[]"),
	})
	loader := &Loader{Inputs: Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}}}
	store := NewStore(loader)
	if rs := reloadAndCompare(t, store, loader, true, "first load"); rs.Outcome != Activated {
		t.Fatalf("first load: %v %v", rs.Outcome, rs.Err)
	}
	find := func(text string) []string { return ids(searchAll(t, store.Current(), text, Filter{})) }
	if got := find("Spindox"); !slices.Equal(got, []string{"wind/datasets.gold.gusts"}) {
		t.Fatalf("Spindox finds %q", got)
	}
	before := map[string]*App{}
	for _, a := range store.Current().Apps() {
		before[a.Name] = a
	}

	for _, step := range []struct {
		name     string
		registry string
		resolved int      // the units whose names are resolved again
		rebuilt  []string // the apps served anew
		finds    map[string][]string
	}{
		{"spxl renamed", registry("Acme Wind Labs", "[]"), 1, nil, map[string][]string{
			"Spindox": nil, "acme": {"wind/datasets.gold.gusts"}, "other org": {"grid/datasets.gold.lines"},
		}},
		{"an alias for the defaults' owner", registry("Acme Wind Labs", "[gridco]"), 1, nil, map[string][]string{
			"gridco": {"grid/datasets.gold.lines"}, "acme": {"wind/datasets.gold.gusts"},
		}},
		{"an owner nobody names", registry("Acme Wind Labs", "[gridco]") + "  - id: fourth\n    type: schema:NGO\n    name: Fourth\n", 0, nil, map[string][]string{
			"fourth": nil, "third party": {"solar/datasets.gold.panels"},
		}},
		{"an alias moved to another owner", moved, 2, []string{"wind"}, map[string][]string{
			"acme": nil, "third party": {"solar/datasets.gold.panels", "wind/datasets.gold.gusts"},
		}},
	} {
		testfs.Write(t, dir, map[string]string{"owners.yaml": step.registry})
		rs := reloadAndCompare(t, store, loader, true, step.name)
		if rs.Outcome != Activated {
			t.Fatalf("%s: %v", step.name, rs.Outcome)
		}
		var rebuilt []string
		for _, a := range store.Current().Apps() {
			if before[a.Name] != a {
				rebuilt = append(rebuilt, a.Name)
			}
			before[a.Name] = a
		}
		if !slices.Equal(rebuilt, step.rebuilt) || rs.UnitsResolved != step.resolved {
			t.Errorf("%s: apps rebuilt %q, %d units resolved again; want %q rebuilt, %d resolved", step.name, rebuilt, rs.UnitsResolved, step.rebuilt, step.resolved)
		}
		for text, want := range step.finds {
			if got := find(text); !slices.Equal(got, want) {
				t.Errorf("%s: %q finds %q, want %q", step.name, text, got, want)
			}
		}
	}
}
