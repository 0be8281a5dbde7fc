package keyindex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

var (
	benchLayers   = []string{"raw", "staging", "silver", "gold"}
	benchDomains  = []string{"meters", "weather", "grid", "pv", "flex", "tariff", "members", "assets", "alerts", "forecast"}
	benchEntities = []string{"readings", "hourly", "daily", "summary", "events", "features", "topology", "profiles", "index", "status"}
)

// pipelineKeys are the sources keys of apps many pipelines (gen_tree.py's
// shape): per app, seven literal keys in ten and three globs, one of each
// kind a platform writes, every key naming its app.
func pipelineKeys(apps, perApp int) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	var keys []string
	for a := range apps {
		app := fmt.Sprintf("app_%04d", a)
		for k := range perApp {
			layer, domain := pick(benchLayers), pick(benchDomains)
			if k%10 < 7 {
				keys = append(keys, fmt.Sprintf("datasets.ds_dev_%s.%s_%s_%s_%d", layer, app, domain, pick(benchEntities), k))
				continue
			}
			switch k % 6 {
			case 0:
				keys = append(keys, fmt.Sprintf("datasets.ds_dev_%s.%s_%s_*", layer, app, domain))
			case 1:
				keys = append(keys, fmt.Sprintf("datasets.*_%s.%s_%s*", layer, app, domain))
			case 2:
				keys = append(keys, fmt.Sprintf("datasets.ds_dev_%s.%s_*", layer, app))
			case 3:
				keys = append(keys, fmt.Sprintf("datasets.ds_dev_%s.%s_%s_[0-9]*", layer, app, domain))
			case 4:
				keys = append(keys, fmt.Sprintf("datasets.ds_dev_%s.%s_%s_v?", strings.Repeat("?", len(layer)), app, domain))
			default:
				keys = append(keys, fmt.Sprintf("datasets.*.%s_%s_*_%s", app, domain, pick(benchEntities)))
			}
		}
	}
	return keys
}

const benchApps, benchPerApp = 1000, 100 // 100 000 keys

// benchApp is the app the benchmarks ask about: its keys are somewhere in
// the middle of the index.
const benchApp = "app_0500"

// instantiate is a name pattern matches: each * as "x1", each ? as "a",
// each [...] as its first member.
func instantiate(pattern string) string {
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			b.WriteString("x1")
		case '?':
			b.WriteByte('a')
		case '[':
			b.WriteByte(pattern[i+1])
			i += strings.IndexByte(pattern[i:], ']')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// appKeys are benchApp's literal keys and its globs, in order.
func appKeys(keys []string) (literals, globs []string) {
	for _, k := range keys {
		if !strings.Contains(k, benchApp+"_") {
			continue
		}
		if HasMeta(k) {
			globs = append(globs, k)
		} else {
			literals = append(literals, k)
		}
	}
	return literals, globs
}

// BenchmarkPatterns asks which globs match a name (resolution's question)
// at 100 000 keys: a literal key's own name, a name each kind of glob
// covers, and one nothing covers.
func BenchmarkPatterns(b *testing.B) {
	keys := pipelineKeys(benchApps, benchPerApp)
	ix := New(keys)
	ix.FileGlobs()
	literals, globs := appKeys(keys)
	cases := []struct{ shape, name string }{{"literal", literals[0]}}
	seen := map[string]bool{}
	for _, g := range globs {
		// The kind of glob, as pipelineKeys writes them.
		var shape string
		switch {
		case strings.HasPrefix(g, "datasets.*_"):
			shape = "leading-star"
		case strings.HasPrefix(g, "datasets.*."):
			shape = "inside-star"
		case strings.Contains(g, "["):
			shape = "bracket"
		case strings.Contains(g, "?"):
			shape = "question-marks"
		default:
			shape = "trailing-star"
		}
		if !seen[shape] {
			seen[shape] = true
			cases = append(cases, struct{ shape, name string }{shape, instantiate(g)})
		}
	}
	cases = append(cases, struct{ shape, name string }{"miss", "warehouse." + benchApp + ".unlisted_1"})
	for _, bc := range cases {
		b.Run(bc.shape, func(b *testing.B) {
			var buf [16]int32
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n = len(ix.AppendPatterns(buf[:0], bc.name))
			}
			b.ReportMetric(float64(n), "matches")
		})
	}
}

// BenchmarkTexts asks which keys a pattern matches (the graph's question
// for a depends_on entry) at 100 000 keys, for a metacharacter inside a
// part, leading or trailing one, a whole part and a bracket, all about one
// of benchApp's literal keys.
func BenchmarkTexts(b *testing.B) {
	keys := pipelineKeys(benchApps, benchPerApp)
	ix := New(keys)
	ix.textSide()
	literals, _ := appKeys(keys)
	key := literals[0] // datasets.ds_dev_<layer>.<app>_<domain>_<entity>_<k>
	p := strings.Split(key, ".")
	layer := strings.TrimPrefix(p[1], "ds_dev_")
	words := strings.Split(strings.TrimPrefix(p[2], benchApp+"_"), "_")
	domain, entity := words[0], words[1]
	for _, bc := range []struct{ shape, pattern string }{
		{"depends-on", "datasets.*_" + layer + "." + benchApp + "_" + domain + "_*"},
		{"trailing-star", "datasets.ds_dev_" + layer + "." + benchApp + "_*"},
		{"leading-star", "*_" + layer + "." + p[2]},
		{"inside-question", "datasets." + p[1] + "." + benchApp[:5] + "?" + benchApp[6:] + "_" + strings.Join(words, "_")},
		{"inside-star", "datasets.*." + benchApp + "_" + domain + "_*_" + words[len(words)-1]},
		{"whole-part", "datasets.*." + benchApp + "_*"},
		{"bracket", "datasets." + p[1] + "." + benchApp + "_" + domain + "_" + entity + "_[0-9]*"},
		{"literal", key},
	} {
		b.Run(bc.shape, func(b *testing.B) {
			g := Compile(bc.pattern)
			var buf [256]int32
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n = len(ix.AppendMatches(buf[:0], g))
			}
			b.ReportMetric(float64(n), "matches")
		})
	}
}

// BenchmarkNew builds the index of 100 000 keys, both questions' sides.
func BenchmarkNew(b *testing.B) {
	keys := pipelineKeys(benchApps, benchPerApp)
	b.ReportAllocs()
	for b.Loop() {
		ix := New(keys)
		ix.FileGlobs()
		ix.textSide()
	}
}

// BenchmarkNewPatternsOnly builds what resolution reads of the index (its
// globs filed under their anchors), the side a tree-wide index files at
// once and an app's when first asked; the other side is built when first
// asked.
func BenchmarkNewPatternsOnly(b *testing.B) {
	keys := pipelineKeys(benchApps, benchPerApp)
	b.ReportAllocs()
	for b.Loop() {
		New(keys).FileGlobs()
	}
}

// BenchmarkJoin joins the indexes of 1 000 apps of 100 keys each into the
// tree-wide one, as every reload does: the parts are built once, outside
// the loop, as a reload reuses the unchanged apps' indexes.
func BenchmarkJoin(b *testing.B) {
	keys := pipelineKeys(benchApps, benchPerApp)
	parts := make([]*Index, benchApps)
	for a := range parts {
		parts[a] = New(keys[a*benchPerApp : (a+1)*benchPerApp])
	}
	b.ReportAllocs()
	for b.Loop() {
		Join(parts).FileGlobs()
	}
}

// BenchmarkJoinAfter is BenchmarkJoin for a reload that built one app's
// index again: the other apps' globs keep their filing.
func BenchmarkJoinAfter(b *testing.B) {
	keys := pipelineKeys(benchApps, benchPerApp)
	parts := make([]*Index, benchApps)
	for a := range parts {
		parts[a] = New(keys[a*benchPerApp : (a+1)*benchPerApp])
	}
	prev := Join(parts)
	prev.FileGlobs()
	edited := slices.Clone(parts)
	mid := benchApps / 2
	edited[mid] = New(append(slices.Clone(keys[mid*benchPerApp:(mid+1)*benchPerApp]), "datasets.appended.edit"))
	b.ReportAllocs()
	for b.Loop() {
		JoinAfter(prev, parts, edited)
	}
}
