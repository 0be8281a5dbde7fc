package ui

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/snapshot"
)

// TestDatasetSearch: the table searched by what a data steward knows of a
// dataset of the real pipelines lists what the snapshot's search finds,
// best first, and says why each matched, the words found marked.
func TestDatasetSearch(t *testing.T) {
	store := celineStore(t)
	h := handler(store)
	snap := store.Current()
	for _, tt := range []struct {
		q        string
		first    string // the first row's dataset
		why      string // what its why cell says
		marked   []string
		emptyWhy bool
	}{
		{q: "Wind Gust", first: "datasets.ds_dev_gold.dwd_icon_d2_gusts", why: "title ICON-D2 Wind Gust Indicators (Daily, Gold)", marked: []string{"Wind", "Gust"}},
		{q: "icon-d2", first: "datasets.ds_dev_gold.dwd_icon_d2_gusts", why: "tag icon-d2", marked: []string{"icon", "d2"}},
		{q: "Spindox", first: "datasets.ds_dev_silver.copernicus_cams_global_reanalysis_eac4_monthly", why: "owner Spindox Labs srl (spxl)", marked: []string{"Spindox"}},
	} {
		query, err := snapshot.NewQuery(tt.q)
		if err != nil {
			t.Fatal(err)
		}
		want, total := snap.Page(snapshot.Filter{Query: query}, 0, 250)
		if total == 0 {
			t.Fatalf("%q finds nothing", tt.q)
		}
		p := get(t, h, "/ui/datasets?per=250&q="+url.QueryEscape(tt.q))
		if p.status != http.StatusOK {
			t.Fatalf("%q: %d", tt.q, p.status)
		}
		rows := p.rows("Served datasets")
		var got []string
		for _, row := range rows {
			got = append(got, strings.SplitN(row, " | ", 2)[0])
		}
		var wantIDs []string
		for _, hit := range want {
			wantIDs = append(wantIDs, hit.Dataset.ID())
		}
		if !slices.Equal(got, wantIDs) {
			t.Errorf("%q: rows %q, want %q", tt.q, got, wantIDs)
		}
		if got[0] != tt.first {
			t.Errorf("%q: first %s, want %s", tt.q, got[0], tt.first)
		}
		mustContain(t, tt.q, strings.SplitN(rows[0], " | ", 3)[1], tt.why)
		mustContain(t, tt.q, p.text(), "with every word of "+tt.q+", best first")
		var marks []string
		for _, m := range p.all("mark") {
			marks = append(marks, nodeText(m))
		}
		for _, m := range tt.marked {
			if !slices.Contains(marks, m) {
				t.Errorf("%q: %q not marked (marks %q)", tt.q, m, marks[:min(10, len(marks))])
			}
		}
	}
}

// TestDatasetSearchRefused: a search the words reader refuses says why and
// lists nothing; a glob lists the keys it matches.
func TestDatasetSearchRefused(t *testing.T) {
	h := handler(demoStore(t))
	for q, want := range map[string]string{
		"---":                               "This search finds nothing: the search holds no letter or digit.",
		strings.Repeat("w ", 20):            "has 1 different words", // one word repeated is one word: accepted
		"a b c d e f g h i j k l m n o p q": "This search finds nothing: the search has 17 different words; at most 16 are matched.",
	} {
		p := get(t, h, "/ui/datasets?q="+url.QueryEscape(q))
		if strings.HasPrefix(want, "has 1") {
			if strings.Contains(p.text(), "finds nothing") {
				t.Errorf("%q refused: %s", q, p.text())
			}
			continue
		}
		if p.status != http.StatusOK || len(p.rows("Served datasets")) != 0 {
			t.Errorf("%q: %d with %d rows", q, p.status, len(p.rows("Served datasets")))
		}
		mustContain(t, q, p.text(), want, "No dataset matches")
	}
}
