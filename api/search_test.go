package api

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestDatasetSearch: GET /datasets?q= finds the real pipelines' datasets by
// a title's words, a tag and an owner's name in dataset-api's registry,
// best first, each item saying where its words were found; a glob is a
// glob over keys; a search the words reader refuses is 400.
func TestDatasetSearch(t *testing.T) {
	h := realServer(t)
	type item struct {
		ID     string
		App    string
		Fields []string
		Score  float64
	}
	list := func(query string) []item {
		r := do(t, h, "GET", "/datasets?"+query, nil)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", query, r.status, r.body)
		}
		var out []item
		for _, it := range decodeBody(t, r)["items"].([]any) {
			m := it.(map[string]any)
			i := item{ID: m["id"].(string), App: m["app"].(string)}
			if s, ok := m["search"].(map[string]any); ok {
				i.Score = s["score"].(float64)
				for _, f := range s["fields"].([]any) {
					i.Fields = append(i.Fields, f.(string))
				}
			}
			out = append(out, i)
		}
		return out
	}
	q := func(text string) string { return "q=" + url.QueryEscape(text) }

	wind := list(q("Wind Gust"))
	if len(wind) < 2 || !slices.Contains([]string{wind[0].ID, wind[1].ID}, "datasets.ds_dev_gold.dwd_icon_d2_gusts") ||
		!slices.Contains([]string{wind[0].ID, wind[1].ID}, "datasets.ds_dev_gold.om_wind_gusts") {
		t.Errorf("Wind Gust: %v", wind)
	}
	for i, it := range wind {
		if i > 0 && it.Score > wind[i-1].Score {
			t.Errorf("Wind Gust: %s (%v) after %s (%v)", it.ID, it.Score, wind[i-1].ID, wind[i-1].Score)
		}
	}
	if !slices.Contains(wind[0].Fields, "title") {
		t.Errorf("Wind Gust: the first found in %v", wind[0].Fields)
	}

	tagged := list(q("icon-d2") + "&tag=icon-d2")
	if len(tagged) != 8 {
		t.Errorf("icon-d2 among the datasets tagged so: %d, want dwd's 8", len(tagged))
	}
	for _, it := range tagged {
		if it.App != "dwd" || !slices.Contains(it.Fields, "tag") {
			t.Errorf("icon-d2: %v", it)
		}
	}

	owned := list(q("Spindox") + "&limit=1000")
	if len(owned) != 60 {
		t.Errorf("Spindox: %d datasets, want spxl's 60", len(owned))
	}
	for _, it := range owned {
		if !slices.Equal(it.Fields, []string{"owner"}) {
			t.Errorf("Spindox: %v", it)
		}
	}

	// Paged by cursor, in rank order; NDJSON in the same order.
	var paged []string
	target := "/datasets?limit=4&" + q("weather")
	for range 100 {
		r := do(t, h, "GET", target, nil)
		body := decodeBody(t, r)
		for _, it := range body["items"].([]any) {
			paged = append(paged, it.(map[string]any)["id"].(string))
		}
		next, _ := body["next"].(string)
		if next == "" {
			break
		}
		target = "/datasets?limit=4&" + q("weather") + "&cursor=" + url.QueryEscape(next)
	}
	var whole, streamed []string
	for _, it := range list(q("weather") + "&limit=1000") {
		whole = append(whole, it.ID)
	}
	r := do(t, h, "GET", "/datasets?"+q("weather"), nil, "Accept", "application/x-ndjson")
	for _, line := range strings.Split(strings.TrimSpace(string(r.body)), "\n") {
		streamed = append(streamed, line[strings.Index(line, `"id":"`)+6:][:strings.Index(line[strings.Index(line, `"id":"`)+6:], `"`)])
	}
	if !slices.Equal(paged, whole) || !slices.Equal(streamed, whole) || len(whole) < 10 {
		t.Errorf("weather: %d paged, %d streamed, %d whole", len(paged), len(streamed), len(whole))
	}

	for _, it := range list(q("datasets.*_gold.dwd_*")) {
		if !strings.HasPrefix(it.ID, "datasets.ds_dev_gold.dwd_") || it.Fields != nil {
			t.Errorf("the glob: %v", it)
		}
	}

	for bad, says := range map[string]string{
		q("---"):                               "no letter or digit",
		q(strings.Repeat("x", 513)):            "at most 512",
		q("a b c d e f g h i j k l m n o p q"): "at most 16",
		"q=%FF":                                "not UTF-8",
	} {
		r := do(t, h, "GET", "/datasets?"+bad, nil)
		if r.status != 400 || !strings.Contains(string(r.body), says) {
			t.Errorf("%.40s: %d %s", bad, r.status, r.body)
		}
	}
}
