package search

import (
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/owners"
	"github.com/celine-eu/governanced/internal/testcorpus"
)

func TestWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"ICON-D2 Wind Gust", []string{"icon", "d2", "wind", "gust"}},
		{"datasets.ds_dev_gold.dwd_icon_d2_gusts", []string{"datasets", "ds", "dev", "gold", "dwd", "icon", "d2", "gusts"}},
		{"  Spindox Labs srl  ", []string{"spindox", "labs", "srl"}},
		{"Straße — Ärger, naïve", []string{"straße", "ärger", "naïve"}},
		{"Open-Meteo (Gold)", []string{"open", "meteo", "gold"}},
		{"datasets.*_silver.[ab]?", []string{"datasets", "silver", "ab"}},
		{"--- ... ***", nil},
		{"", nil},
		{"ΣΊΣΥΦΟΣ 42", []string{"σίσυφοσ", "42"}}, // strings.ToLower: no final sigma
		{"\xff\xfebad", []string{"bad"}},
	} {
		if got := Words(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Words(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseQuery(t *testing.T) {
	for _, c := range []struct {
		in      string
		words   []string
		wantErr string
	}{
		{in: "Wind Gust", words: []string{"wind", "gust"}},
		{in: "gust wind GUST", words: []string{"gust", "wind"}},
		{in: "icon-d2", words: []string{"icon", "d2"}},
		{in: "   ", wantErr: ErrNoWords.Error()},
		{in: "*?[]", wantErr: ErrNoWords.Error()},
		{in: strings.Repeat("a", MaxQueryBytes+1), wantErr: "at most 512 are read"},
		{in: "a\xffb", wantErr: "not UTF-8"},
		{in: strings.Repeat("w ", MaxQueryWords), words: Words(strings.Repeat("w ", MaxQueryWords))[:1]},
		{in: "a b c d e f g h i j k l m n o p q", wantErr: "17 different words; at most 16"},
	} {
		q, err := ParseQuery(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("ParseQuery(%.40q): error %v, want one saying %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseQuery(%q): %v", c.in, err)
			continue
		}
		if !slices.Equal(q.Words(), c.words) || q.Text() != c.in {
			t.Errorf("ParseQuery(%q) = %q, want %q", c.in, q.Words(), c.words)
		}
	}
	if _, err := ParseQuery(""); !errors.Is(err, ErrNoWords) {
		t.Errorf("an empty search: %v, want ErrNoWords", err)
	}
}

const registryText = `owners:
  - id: spxl
    name: Spindox Labs srl
  - id: example_rec
    name: Example REC
    aliases: [rec]
`

const configText = `defaults:
  title: Untitled
  source_system: Meter Hub
  tags: [energy]
  ownership:
    - {name: rec, type: DATA_OWNER}
sources:
  datasets.gold.wind_gusts:
    title: Wind Gust Alerts
    description: Daily gust maxima from the ICON-D2 model.
    tags: [icon-d2, wind]
    ownership:
      - {name: spxl, type: organization}
  datasets.silver.wind:
    description: Wind fields, gust included.
    source_system: null
  datasets.raw.meters_*:
    tags: [raw]
    ownership:
      - {name: ghost, type: OWNER}
`

// fixture is a configuration with its ownership resolved against a
// registry, as the check serves it.
func fixture(t testing.TB, config, registry string) (*governance.Config, *owners.Registry) {
	t.Helper()
	cfg, reg := parsed(t, config, registry)
	cfg, _, err := owners.ResolveConfigOwnership(cfg, reg, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, reg
}

// parsed is a configuration with its names as written, and a registry.
func parsed(t testing.TB, config, registry string) (*governance.Config, *owners.Registry) {
	t.Helper()
	cfg, err := governance.Parse([]byte(config), "governance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := owners.Parse([]byte(registry), "owners.yaml", owners.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, f.Build()
}

type hit struct {
	Key    string
	Fields string
}

func search(t testing.TB, ix *Index, reg Registry, cfg *governance.Config, text string) []hit {
	t.Helper()
	q, err := ParseQuery(text)
	if err != nil {
		t.Fatal(err)
	}
	var out []hit
	ix.Match(q, cfg, reg, nil, func(pos int, m Match) {
		out = append(out, hit{cfg.Sources[pos].Key, m.Fields.String()})
	})
	return out
}

func TestMatch(t *testing.T) {
	cfg, reg := fixture(t, configText, registryText)
	ix := NewIndex("weather", cfg)
	for _, c := range []struct {
		query string
		want  []hit
	}{
		{"Wind Gust", []hit{{"datasets.gold.wind_gusts", "key|title|tag|description"}, {"datasets.silver.wind", "key|description"}}},
		{"gust wind", []hit{{"datasets.gold.wind_gusts", "key|title|tag|description"}, {"datasets.silver.wind", "key|description"}}},
		{"icon-d2", []hit{{"datasets.gold.wind_gusts", "tag|description"}}},
		// An owner's display name, from the registry.
		{"Spindox", []hit{{"datasets.gold.wind_gusts", "owner"}}},
		// The defaults' owner, through its alias: every dataset that lists
		// no owner of its own.
		{"example rec", []hit{{"datasets.silver.wind", "owner"}}},
		{"rec", []hit{{"datasets.silver.wind", "owner"}}},
		// An ownership name no owner has is found as written.
		{"ghost", []hit{{"datasets.raw.meters_*", "owner"}}},
		// The defaults' title only where the entry states none; the
		// defaults' tags everywhere; the app's name everywhere.
		{"untitled", []hit{{"datasets.silver.wind", "title"}, {"datasets.raw.meters_*", "title"}}},
		{"energy", []hit{{"datasets.gold.wind_gusts", "tag"}, {"datasets.silver.wind", "tag"}, {"datasets.raw.meters_*", "tag"}}},
		{"weather", []hit{{"datasets.gold.wind_gusts", "app"}, {"datasets.silver.wind", "app"}, {"datasets.raw.meters_*", "app"}}},
		// A source system stated null is none.
		{"meter hub", []hit{{"datasets.gold.wind_gusts", "source_system"}, {"datasets.raw.meters_*", "key|source_system"}}},
		{"METERS", []hit{{"datasets.raw.meters_*", "key"}}},
		{"wind nothing", nil},
		{"zebra", nil},
	} {
		if diff := cmp.Diff(c.want, search(t, ix, reg, cfg, c.query)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.query, diff)
		}
	}
}

func TestRanking(t *testing.T) {
	cfg, reg := fixture(t, configText, registryText)
	ix := NewIndex("weather", cfg)
	scores := map[string]uint32{}
	q, _ := ParseQuery("wind gust")
	ix.Match(q, cfg, reg, nil, func(pos int, m Match) { scores[cfg.Sources[pos].Key] = m.Score })
	// Both words in the title beat one in the key and one in the
	// description.
	if scores["datasets.gold.wind_gusts"] <= scores["datasets.silver.wind"] {
		t.Errorf("scores %v: the title match should rank first", scores)
	}
	if s := scores["datasets.gold.wind_gusts"]; s > MaxScore {
		t.Errorf("score %d above MaxScore %d", s, MaxScore)
	}
}

// document is one dataset's fields, each as its words, read the slow way:
// the served rule merged, every field's words listed.
type document map[Field][]string

func documents(app string, cfg *governance.Config, reg owners.Lookup) []document {
	var out []document
	for _, src := range cfg.Sources {
		r := governance.MergeRules(cfg.Defaults, src.Rule)
		fields := document{Key: Words(src.Key), App: Words(app)}
		if t, ok := r.Title(); ok {
			fields[Title] = Words(t)
		}
		if d, ok := r.Description(); ok {
			fields[Description] = Words(d)
		}
		if s := r.SourceSystem(); s != nil {
			fields[Source] = Words(*s)
		}
		for _, tag := range r.Tags() {
			fields[Tag] = append(fields[Tag], Words(tag)...)
		}
		for _, o := range r.Ownership() {
			fields[Owner] = append(fields[Owner], Words(o.Name)...)
			if e := reg.ByID(o.Name); e != nil {
				if e.Name != nil {
					fields[Owner] = append(fields[Owner], Words(*e.Name)...)
				}
				for _, a := range e.Aliases {
					fields[Owner] = append(fields[Owner], Words(a)...)
				}
			}
		}
		out = append(out, fields)
	}
	return out
}

// reference is what Match answers for the documents: a word of the query
// matches a field when it begins one of its words, and adds to the score
// the weight of the best field it begins a word of, or twice that of the
// best field holding it whole, and rankStep when the key or the title
// holds it.
func reference(docs []document, q *Query) map[int]Match {
	out := map[int]Match{}
	for pos, fields := range docs {
		var m Match
		matched := true
		for _, w := range q.Words() {
			var in, whole Field
			for f, ws := range fields {
				if slices.ContainsFunc(ws, func(x string) bool { return strings.HasPrefix(x, w) }) {
					in |= f
				}
				if slices.Contains(ws, w) {
					whole |= f
				}
			}
			if in == 0 {
				matched = false
				break
			}
			m.Fields |= in
			m.Score += max(weight(in), 2*weight(whole))
			if in&(Key|Title) != 0 {
				m.Score += rankStep
			}
		}
		if matched {
			out[pos] = m
		}
	}
	return out
}

// celine is the real pipelines' configurations, ownership resolved
// against dataset-api's registry.
func celine(t testing.TB) (map[string]*governance.Config, *owners.Registry) {
	t.Helper()
	reg, err := owners.Load(testcorpus.Path(t, "reference/dataset-api/owners.yaml"), owners.Options{})
	if err != nil {
		t.Fatal(err)
	}
	apps := map[string]*governance.Config{}
	for _, file := range testcorpus.ReferenceApps(t) {
		cfg, err := governance.LoadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if cfg, _, err = owners.ResolveConfigOwnership(cfg, reg, false, nil); err != nil {
			t.Fatal(err)
		}
		apps[filepath.Base(filepath.Dir(file))] = cfg
	}
	return apps, reg
}

// TestMatchAgreesWithReference holds Match to the slow reading on the real
// pipelines, for every word of theirs, its prefixes, and pairs.
func TestMatchAgreesWithReference(t *testing.T) {
	apps, reg := celine(t)
	indexes := map[string]*Index{}
	docs := map[string][]document{}
	vocab := map[string]bool{}
	for app, cfg := range apps {
		docs[app] = documents(app, cfg, reg)
		indexes[app] = NewIndex(app, cfg)
		indexes[app].EachWord(func(w string) { vocab[w] = true })
	}
	var queries []string
	for w := range vocab {
		queries = append(queries, w, w[:max(1, len(w)/2)])
	}
	slices.Sort(queries)
	for i := 0; i+7 < len(queries); i += 7 {
		queries = append(queries, queries[i]+" "+queries[i+7])
	}
	queries = append(queries, "Wind Gust", "icon-d2", "Spindox", "zzz", "0")
	var s Scratch
	for _, text := range queries {
		q, err := ParseQuery(text)
		if err != nil {
			t.Fatal(err)
		}
		for app := range apps {
			got := map[int]Match{}
			indexes[app].Match(q, apps[app], reg, &s, func(pos int, m Match) { got[pos] = m })
			if diff := cmp.Diff(reference(docs[app], q), got); diff != "" {
				t.Fatalf("%q in %s (-reference +Match):\n%s", text, app, diff)
			}
		}
	}
}

func TestSpans(t *testing.T) {
	q, _ := ParseQuery("wind gus")
	got := q.Spans("ICON-D2 Wind Gust Indicators (windy)")
	want := []Span{{Text: "ICON-D2 "}, {Text: "Wind", Mark: true}, {Text: " "}, {Text: "Gust", Mark: true}, {Text: " Indicators ("}, {Text: "windy", Mark: true}, {Text: ")"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := q.Spans("nothing here"); len(got) != 1 || got[0].Mark {
		t.Errorf("no match: %v", got)
	}
}

// TestMaxScore: the most a query can score, every word whole in a title.
func TestMaxScore(t *testing.T) {
	words := Words("a b c d e f g h i j k l m n o p")
	cfg, err := governance.Parse([]byte("sources:\n  x:\n    title: "+strings.Join(words, " ")+"\n"), "governance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	q, err := ParseQuery(strings.Join(words, " "))
	if err != nil {
		t.Fatal(err)
	}
	var got uint32
	NewIndex("app", cfg).Match(q, cfg, nil, nil, func(_ int, m Match) { got = m.Score })
	if got != MaxScore {
		t.Errorf("score %d, want MaxScore %d", got, MaxScore)
	}
}

func TestFieldNames(t *testing.T) {
	if got := (Key | Owner | Description).Names(); !slices.Equal(got, []string{"key", "owner", "description"}) {
		t.Errorf("names %q", got)
	}
}

// TestMatchManyDatasets holds Match to the slow reading on an app of
// more datasets than one byte of a posting places, and whose words' gaps
// between datasets take more than a byte: every real pipeline's sources
// under one app's defaults, repeated past a thousand.
func TestMatchManyDatasets(t *testing.T) {
	apps, reg := celine(t)
	names := slices.Sorted(maps.Keys(apps))
	wide := *apps[names[0]]
	wide.Sources = nil
	for len(wide.Sources) <= 1000 {
		for _, app := range names {
			wide.Sources = append(wide.Sources, apps[app].Sources...)
		}
	}
	ix := NewIndex("wide", &wide)
	docs := documents("wide", &wide, reg)
	var s Scratch
	for _, text := range []string{"Wind Gust", "icon-d2", "Spindox", "datasets", "wide", "zzz", "0", "w"} {
		q, err := ParseQuery(text)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int]Match{}
		ix.Match(q, &wide, reg, &s, func(pos int, m Match) { got[pos] = m })
		if diff := cmp.Diff(reference(docs, q), got); diff != "" {
			t.Fatalf("%q (-reference +Match):\n%s", text, diff)
		}
	}
}

// TestMatchConcurrent: an index lists its datasets' ownership lists when
// a search first reads the owners' words; searches asking at once agree
// with the slow reading and (under -race) none writes what another reads.
func TestMatchConcurrent(t *testing.T) {
	apps, reg := celine(t)
	var wg sync.WaitGroup
	for app, cfg := range apps {
		ix := NewIndex(app, cfg)
		docs := documents(app, cfg, reg)
		q, err := ParseQuery("Spindox")
		if err != nil {
			t.Fatal(err)
		}
		want := reference(docs, q)
		for range 4 {
			wg.Go(func() {
				got := map[int]Match{}
				ix.Match(q, cfg, reg, nil, func(pos int, m Match) { got[pos] = m })
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s (-reference +Match):\n%s", app, diff)
				}
			})
		}
	}
	wg.Wait()
}

// TestMatchNamesAsWritten: a configuration whose names were not resolved
// (an alias served as written) still finds a dataset by the words of the
// owner the alias names, as the reference reading does.
func TestMatchNamesAsWritten(t *testing.T) {
	cfg, reg := parsed(t, configText, registryText)
	ix := NewIndex("weather", cfg)
	docs := documents("weather", cfg, reg)
	for _, text := range []string{"example", "Example REC", "rec", "spindox"} {
		q, err := ParseQuery(text)
		if err != nil {
			t.Fatal(err)
		}
		want := reference(docs, q)
		if text == "example" && len(want) == 0 {
			t.Fatal("the reference finds nothing by the alias's owner: the case tests nothing")
		}
		got := map[int]Match{}
		ix.Match(q, cfg, reg, nil, func(pos int, m Match) { got[pos] = m })
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q (-reference +Match):\n%s", text, diff)
		}
	}
}
