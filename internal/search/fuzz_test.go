package search

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzQuery reads any text as a search: ParseQuery refuses it or reads its
// words, Match answers what the slow reading answers (the fields and the
// score) on the real pipelines, and the spans of a text put together are
// the text.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{"Wind Gust", "icon-d2", "Spindox", "rec", "ΣΊΣΥΦΟΣ", "a\xffb", "*?[", "datasets.ds_dev_gold.*", strings.Repeat("x ", 20)} {
		f.Add(s, "ICON-D2 Wind Gust Indicators")
	}
	apps, reg := celine(f)
	indexes := map[string]*Index{}
	docs := map[string][]document{}
	for app, cfg := range apps {
		indexes[app] = NewIndex(app, cfg)
		docs[app] = documents(app, cfg, reg)
	}
	f.Fuzz(func(t *testing.T, text, field string) {
		q, err := ParseQuery(text)
		if err != nil {
			return
		}
		if len(q.Words()) == 0 || len(q.Words()) > MaxQueryWords {
			t.Fatalf("%q: %d words accepted", text, len(q.Words()))
		}
		var s Scratch
		for app, ix := range indexes {
			got := map[int]Match{}
			ix.Match(q, apps[app], reg, &s, func(pos int, m Match) {
				if m.Score > MaxScore {
					t.Fatalf("score %d above %d", m.Score, MaxScore)
				}
				got[pos] = m
			})
			if diff := cmp.Diff(reference(docs[app], q), got); diff != "" {
				t.Fatalf("%q in %s (-reference +Match):\n%s", text, app, diff)
			}
		}
		var joined strings.Builder
		for _, sp := range q.Spans(field) {
			joined.WriteString(sp.Text)
		}
		if joined.String() != field {
			t.Fatalf("the spans of %q put together are %q", field, joined.String())
		}
	})
}
