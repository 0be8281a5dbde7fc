package governance

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/yaml11"
)

// sharedDocs are two apps' documents stating the same values.
var sharedDocs = []string{sharedDoc("a", "One", "Two"), sharedDoc("b", "Three", "Four")}

// sharedDoc is an app's document stating the values every sharedDocs
// document states, under the app's own keys and titles.
func sharedDoc(app, title1, title2 string) string {
	return fmt.Sprintf(`
defaults:
  license: CC-BY-4.0
  ownership: [{name: org_a, type: DATA_OWNER}]
  tags: [gold, energy]
  dcat: {themes: [http://t/ENER]}
  dataspace: {purpose: [Research], medallion: gold}
sources:
  %[1]s.one: {title: %[2]s, tags: [gold, energy], row_filters: [{handler: rec_registry, args: {column: c}}]}
  %[1]s.two: {title: %[3]s, ownership: [{name: org_a, type: DATA_OWNER}], retention_days: 30}
`, app, title1, title2)
}

func parseShared(t *testing.T, v *Values, i int) *Config {
	t.Helper()
	return parseWith(t, v, fmt.Sprintf("app%d/governance.yaml", i), sharedDocs[i])
}

// parseWith parses text as the base document file with v's shared values
// (nil: none), as a server's build does.
func parseWith(t *testing.T, v *Values, file, text string) *Config {
	t.Helper()
	doc, err := yaml11.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := v.ParseDocument(doc, file, false)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestValuesShareAcrossDocuments: documents parsed with one Values hold
// one copy of each value they state alike; parsed apart, each holds its
// own. Either way they read the same.
func TestValuesShareAcrossDocuments(t *testing.T) {
	shared := NewValues()
	a, b := parseShared(t, shared, 0), parseShared(t, shared, 1)
	apart := parseShared(t, nil, 1)
	same := []struct {
		what     string
		got, not bool // shared across documents; shared with a document parsed apart
	}{
		{"licence", a.Defaults.License == b.Defaults.License, a.Defaults.License == apart.Defaults.License},
		{"owner list", &a.Defaults.Ownership()[0] == &b.Sources[1].Rule.Ownership()[0], &a.Defaults.Ownership()[0] == &apart.Defaults.Ownership()[0]},
		{"tag list", &a.Sources[0].Rule.Tags()[0] == &b.Defaults.Tags()[0], &a.Defaults.Tags()[0] == &apart.Defaults.Tags()[0]},
		{"row filters", &a.Sources[0].Rule.RowFilters()[0] == &b.Sources[0].Rule.RowFilters()[0], &a.Sources[0].Rule.RowFilters()[0] == &apart.Sources[0].Rule.RowFilters()[0]},
		{"dcat block", a.Defaults.Dcat == b.Defaults.Dcat, a.Defaults.Dcat == apart.Defaults.Dcat},
		{"dataspace block", a.Defaults.Dataspace == b.Defaults.Dataspace, a.Defaults.Dataspace == apart.Defaults.Dataspace},
		{"number", a.Sources[1].Rule.RetentionDays() == b.Sources[1].Rule.RetentionDays(), a.Sources[1].Rule.RetentionDays() == apart.Sources[1].Rule.RetentionDays()},
		{"rare fields block", a.Sources[0].Rule.rare == b.Sources[0].Rule.rare, a.Sources[0].Rule.rare == apart.Sources[0].Rule.rare},
	}
	for _, s := range same {
		if !s.got {
			t.Errorf("the %s is copied in each document parsed with one Values", s.what)
		}
		if s.not {
			t.Errorf("the %s is shared with a document parsed without them", s.what)
		}
	}
	if diff := cmp.Diff(renderConfig(t, apart), renderConfig(t, b)); diff != "" {
		t.Errorf("a document parsed with shared values reads differently (-apart +shared):\n%s", diff)
	}
}

// TestValuesConcurrent parses documents on many goroutines with one
// Values (go test -race): every document reads as it does parsed alone.
func TestValuesConcurrent(t *testing.T) {
	shared := NewValues()
	want := []string{renderConfig(t, parseShared(t, nil, 0)), renderConfig(t, parseShared(t, nil, 1))}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				k := (g + i) % 2
				if got := renderConfig(t, parseShared(t, shared, k)); got != want[k] {
					t.Errorf("document %d parsed concurrently reads differently:\n%s", k, cmp.Diff(want[k], got))
				}
			}
		})
	}
	wg.Wait()
}

// renderConfig is what a configuration serves: every rule as JSON, with
// its provenance.
func renderConfig(t *testing.T, cfg *Config) string {
	t.Helper()
	out := "defaults " + string(mustJSON(t, cfg.Defaults)) + " " + string(cfg.Defaults.AppendProvenanceJSON(nil)) + "\n"
	for _, s := range cfg.Sources {
		out += s.Key + " " + string(mustJSON(t, s.Rule)) + " " + string(s.Rule.AppendProvenanceJSON(nil)) + "\n"
	}
	return out
}

func mustJSON(t *testing.T, r *Rule) []byte {
	t.Helper()
	b, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
