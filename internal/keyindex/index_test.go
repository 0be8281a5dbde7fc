package keyindex

import (
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// oracle answers the index's questions by matching every entry one by one
// (the matcher itself is FuzzGlob's to hold to fnmatchcase).
type oracle []string

func (o oracle) patterns(name string) []int32 {
	var out []int32
	for i, t := range o {
		if HasMeta(t) && Compile(t).Match(name) {
			out = append(out, int32(i))
		}
	}
	return out
}

func (o oracle) longest(name string) []int32 {
	var out []int32
	best := -1
	for _, i := range o.patterns(name) {
		switch n := utf8.RuneCountInString(o[i]); {
		case n > best:
			out, best = []int32{i}, n
		case n == best:
			out = append(out, i)
		}
	}
	return out
}

func (o oracle) texts(pattern string) []int32 {
	var out []int32
	for i, t := range o {
		if HasMeta(pattern) && Compile(pattern).Match(t) || !HasMeta(pattern) && t == pattern {
			out = append(out, int32(i))
		}
	}
	return out
}

func (o oracle) equal(name string) []int32 {
	var out []int32
	for i, t := range o {
		if t == name {
			out = append(out, int32(i))
		}
	}
	return out
}

// check compares every answer of New(texts) about each query with the
// oracle's.
func check(t *testing.T, texts []string, queries []string) {
	t.Helper()
	// The texts in one index, and joined from parts as a tree's index
	// joins its apps', one of which joins a merge's base and new keys.
	half := len(texts) / 2
	third := half / 2
	joined := Join([]*Index{Join([]*Index{New(texts[:third]), New(texts[third:half])}), New(nil), New(texts[half:])})
	for _, ix := range []*Index{New(texts), joined} {
		checkIndex(t, ix, texts, queries)
	}
	// A part's resolution asked of the join: its own entries only.
	for _, r := range [][2]int{{0, third}, {third, half}, {half, half}, {half, len(texts)}, {0, len(texts)}} {
		part := oracle(texts[r[0]:r[1]])
		for _, q := range queries {
			var want []int32
			for _, i := range part.longest(q) {
				want = append(want, i+int32(r[0]))
			}
			if diff := cmp.Diff(want, joined.AppendLongestIn(nil, q, r[0], r[1])); diff != "" {
				t.Errorf("AppendLongestIn(%q, %d, %d) over %q (-want +got):\n%s", q, r[0], r[1], texts, diff)
			}
		}
	}
}

func checkIndex(t *testing.T, ix *Index, texts []string, queries []string) {
	t.Helper()
	o := oracle(texts)
	for _, q := range queries {
		if diff := cmp.Diff(o.patterns(q), ix.AppendPatterns(nil, q)); diff != "" {
			t.Errorf("AppendPatterns(%q) over %q (-want +got):\n%s", q, texts, diff)
		}
		if diff := cmp.Diff(o.longest(q), ix.AppendLongest(nil, q)); diff != "" {
			t.Errorf("AppendLongest(%q) over %q (-want +got):\n%s", q, texts, diff)
		}
		if diff := cmp.Diff(o.texts(q), ix.AppendTexts(nil, q)); diff != "" {
			t.Errorf("AppendTexts(%q) over %q (-want +got):\n%s", q, texts, diff)
		}
		eq := o.equal(q)
		if diff := cmp.Diff(eq, ix.AppendEqual(nil, q)); diff != "" {
			t.Errorf("AppendEqual(%q) over %q (-want +got):\n%s", q, texts, diff)
		}
		want := -1
		if len(eq) > 0 {
			want = int(eq[0])
		}
		if got := ix.Lookup(q); got != want {
			t.Errorf("Lookup(%q) over %q = %d, want %d", q, texts, got, want)
		}
	}
	globs := 0
	for i := range texts {
		if got := ix.Text(i); got != texts[i] {
			t.Errorf("Text(%d) = %q, want %q", i, got, texts[i])
		}
		g, ok := ix.Glob(i)
		if ok != HasMeta(texts[i]) || ok && g.String() != texts[i] {
			t.Errorf("Glob(%d) = %q, %v for %q", i, g.String(), ok, texts[i])
		}
		for _, q := range queries {
			if want := Compile(texts[i]); ok && g.Match(q) != want.Match(q) {
				t.Errorf("Glob(%d).Match(%q) = %v, Compile(%q) says %v", i, q, g.Match(q), texts[i], want.Match(q))
			}
		}
		if HasMeta(texts[i]) {
			globs++
		}
		if got, want := ix.Repeated(i), len(o.equal(texts[i])) > 1 && o.equal(texts[i])[len(o.equal(texts[i]))-1] != int32(i); got != want {
			t.Errorf("Repeated(%d) = %v, want %v", i, got, want)
		}
	}
	if got := ix.Globs(); got != globs {
		t.Errorf("Globs() = %d, want %d", got, globs)
	}
}

// The shapes of keys and depends_on entries a platform writes: a * or ?
// or [...] inside a dot-separated part, leading or trailing it, whole parts
// and whole names.
var shapeKeys = []string{
	"datasets.ds_dev_silver.app_0010_weather_hourly_5",
	"datasets.ds_dev_gold.app_0010_weather_daily_7",
	"datasets.ds_dev_silver.app_0011_weather_hourly_5",
	"datasets.ds_prod_silver.app_0010_weather_hourly_5",
	"datasets.ds_dev_silver.app_0010_meters_index_2",
	"datasets.ds_dev_silver.app_0010_weather_*",
	"datasets.*_silver.app_0010_weather*",
	"datasets.ds_dev_silver.app_0010_*",
	"datasets.ds_dev_silver.app_0010_weather_[0-9]*",
	"datasets.ds_dev_??????.app_0010_weather_v?",
	"datasets.*.app_0010_weather_*_hourly",
	"datasets.ds_dev_silver.app_0010_weather_hourly_5", // a repeat
	"*",
	"*weather*",
	"[!d]*",
	"datasets.*",
	"*.app_0010_meters_index_2",
	"ds.a.b",
	"",
}

var shapeQueries = []string{
	"datasets.ds_dev_silver.app_0010_weather_hourly_5",
	"datasets.ds_dev_silver.app_0010_weather_1x",
	"datasets.ds_dev_silver.app_0010_weather_v1",
	"datasets.ds_dev_gold.app_0010_weather_x_hourly",
	"datasets.x.y.app_0010_weatherz",
	"datasets.*_silver.app_0010_weather_*",
	"datasets.*_gold.app_0010_*",
	"datasets.*.app_0010_weather_*_hourly",
	"datasets.ds_dev_silver.app_0010_weather_*",
	"*_silver.*",
	"*.app_0010_meters_index_2",
	"datasets.ds_dev_?????.app_0010_weather_daily_7",
	"datasets.ds_dev_[gs]*.app_0011_*",
	"*weather*",
	"*",
	"?",
	"",
	"ds.a.b",
	"ds.a.*",
	"x",
	"app_0010",
}

func TestIndexShapes(t *testing.T) {
	check(t, shapeKeys, append(shapeQueries, shapeKeys...))
}

func TestIndexEdges(t *testing.T) {
	tests := []struct {
		name    string
		texts   []string
		queries []string
	}{
		{"empty", nil, []string{"", "a", "*"}},
		{"only literals", []string{"a.b", "a.c", "a.b"}, []string{"a.b", "a.*", "*", "a.?"}},
		{"dots everywhere", []string{".", "..", "a.", ".a", "*.", ".*", "*.*", "a..b"}, []string{".", "..", "a.", ".a", "a..b", "*", "?.?", "*..*"}},
		{"brackets hold dots", []string{"a[.]b", "a[!.]b", "a[.", "x.[a-c].y"}, []string{"a.b", "axb", "a[.", "x.b.y", "x.[a-c].y"}},
		{"invalid UTF-8", []string{"ds.\xe2\x82*", "ds.\xff*", "\xff.x", "ds.é*"}, []string{"ds.\xe2\x82\xac", "ds.\xe2\x82A", "ds.\xffz", "\xff.x", "ds.éa", "ds.\xc3"}},
		{"stars between dots", []string{"a.*.b", "a.**.b", "*.b", "a.*"}, []string{"a..b", "a.x.y.b", "a.b", "x.b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, tt.texts, append(tt.queries, tt.texts...))
		})
	}
}

// FuzzIndex holds every answer of the index to matching every entry one by
// one.
func FuzzIndex(f *testing.F) {
	f.Add(strings.Join(shapeKeys, ","), "datasets.*_silver.app_0010_weather_*")
	f.Add(strings.Join(shapeKeys, ","), "datasets.ds_dev_silver.app_0010_weather_v1")
	f.Add("a.*.b,*.b,a.b.c,[.]x", "a.b.b")
	f.Add("ds.\xe2\x82*,\xff.x", "ds.\xe2\x82\xac")
	f.Fuzz(func(t *testing.T, joined, query string) {
		texts := strings.Split(joined, ",")
		if len(texts) > 64 {
			texts = texts[:64]
		}
		queries := []string{query}
		for i := 0; i < len(texts); i += 1 + len(texts)/8 {
			queries = append(queries, texts[i]) // a few entries as queries: the glob-against-glob cases
		}
		check(t, texts, queries)
	})
}

func TestJoin(t *testing.T) {
	parts := [][]string{
		{"a.b", "a.*"},
		{},
		{"x.y", "a.b"},
		{"*.b", "[ab].c", "a.*"},
	}
	var all []string
	var ixs []*Index
	for _, p := range parts {
		all = append(all, p...)
		ixs = append(ixs, New(p))
	}
	ix := Join(ixs)
	o := oracle(all)
	for _, q := range append([]string{"a.b", "a.c", "b.c", "zz", "a.*"}, all...) {
		if diff := cmp.Diff(o.patterns(q), ix.AppendPatterns(nil, q)); diff != "" {
			t.Errorf("AppendPatterns(%q) (-want +got):\n%s", q, diff)
		}
		if diff := cmp.Diff(o.texts(q), ix.AppendTexts(nil, q)); diff != "" {
			t.Errorf("AppendTexts(%q) (-want +got):\n%s", q, diff)
		}
		if diff := cmp.Diff(o.equal(q), ix.AppendEqual(nil, q)); diff != "" {
			t.Errorf("AppendEqual(%q) (-want +got):\n%s", q, diff)
		}
	}
	for _, c := range []struct{ joined, part, entry int }{{1, 0, 1}, {4, 3, 0}, {5, 3, 1}, {6, 3, 2}} {
		g, _ := ix.Glob(c.joined)
		h, _ := ixs[c.part].Glob(c.entry)
		if &g.ops[0] != &h.ops[0] {
			t.Errorf("Join's glob %d is not part %d's glob %d, as compiled there", c.joined, c.part, c.entry)
		}
	}
}

// TestConcurrentFirstQuestions: an index files its globs and builds its
// text side when first asked; readers asking at once agree, and (under
// -race) none writes what another reads.
func TestConcurrentFirstQuestions(t *testing.T) {
	ix := Join([]*Index{New(shapeKeys[:6]), New(shapeKeys[6:])})
	o := oracle(shapeKeys)
	q := "datasets.ds_dev_silver.app_0010_weather_hourly_5"
	want := o.longest(q)
	var wg sync.WaitGroup
	got := make([][]int32, 8)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[g] = ix.AppendLongest(nil, q)
			ix.AppendTexts(nil, "datasets.*")
		}()
	}
	wg.Wait()
	for g := range got {
		if diff := cmp.Diff(want, got[g]); diff != "" {
			t.Errorf("reader %d (-want +got):\n%s", g, diff)
		}
	}
}

func TestRepeats(t *testing.T) {
	type pair struct{ First, Repeat int }
	for _, tc := range []struct {
		name  string
		parts [][]string
		want  []pair
	}{
		{"none", [][]string{{"a.b", "a.*"}, {"a.c"}}, nil},
		{"within one", [][]string{{"a.b", "a.b", "x", "a.b"}}, []pair{{0, 1}, {0, 3}}},
		{"across a join", [][]string{{"a.b", "a.*"}, {}, {"x.y", "a.b"}, {"a.*", "x.y", "a.b"}}, []pair{{0, 3}, {1, 4}, {2, 5}, {0, 6}}},
		{"a glob and its text alike", [][]string{{"a.*"}, {"a.*"}}, []pair{{0, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ixs []*Index
			for _, p := range tc.parts {
				ixs = append(ixs, New(p))
			}
			ix := Join(ixs)
			if len(ixs) == 1 {
				ix = ixs[0]
			}
			var got []pair
			for first, repeat := range ix.Repeats() {
				got = append(got, pair{first, repeat})
				if ix.Text(first) != ix.Text(repeat) {
					t.Errorf("entries %d and %d differ: %q, %q", first, repeat, ix.Text(first), ix.Text(repeat))
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Repeats (-want +got):\n%s", diff)
			}
		})
	}
}
