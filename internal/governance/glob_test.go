package governance

import (
	"strings"
	"testing"
)

// globVectors are examples.md E2: the reference's answers, including the
// places where fnmatch differs from other glob dialects.
var globVectors = []struct {
	pattern, name string
	match         bool
}{
	{`ds.*`, `ds.gold.x`, true},
	{`ds.*.x`, `ds.gold.x`, true},
	{`ds.*.x`, `ds..x`, true},
	{`ds.*.x`, `ds.x`, false},
	{`ds.*.x`, `ds.a.b.x`, true},
	{`ds.gold.?`, `ds.gold.x`, true},
	{`ds.gold.?`, `ds.gold.xy`, false},
	{`a?b`, `a.b`, true},
	{`ds.gold.[xy]`, `ds.gold.x`, true},
	{`ds.gold.[!xy]`, `ds.gold.z`, true},
	{`ds.gold.[!xy]`, `ds.gold.x`, false},
	{`ds.*`, `DS.gold.x`, false},
	{`ds.gold.[a-c]`, `ds.gold.b`, true},
	{`ds.gold.[a-c]`, `ds.gold.B`, false},
	{`[]]`, `]`, true},
	{`[!]]`, `a`, true},
	{`[!]]`, `]`, false},
	{`a[b`, `a[b`, true},
	{`a[b`, `ab`, false},
	{`[!]`, `[!]`, true},
	{`[!]`, `x`, false},
	{`[a-]`, `-`, true},
	{`[-a]`, `-`, true},
	{`[a-c-e]`, `d`, false},
	{`[a-c-e]`, `-`, true},
	{`[z-a]`, `b`, false},
	{`[!z-a]`, `b`, true},
	{`[^a]`, `^`, true},
	{`[^a]`, `b`, false},
	{`[--a]`, `/`, true},
	{`[]-c]`, `b`, true},
	{`[\]`, `\`, true},
	{`\*`, `*`, false},
	{`\*`, `\x`, true},
	{`\*`, `\*`, true},
	{`\a`, `a`, false},
	{`[*]`, `*`, true},
	{`[*]`, `x`, false},
	{`*`, ``, true},
	{`?`, `é`, true},
	{`datasets.*_gold.weather__forecast_hourly`, `datasets.ds_dev_gold.weather__forecast_hourly`, true},
	{`datasets.*_gold.pv_*`, `datasets.ds_prod_gold.pv_x`, true},
}

func TestGlobVectors(t *testing.T) {
	for _, v := range globVectors {
		if got := CompileGlob(v.pattern).Match(v.name); got != v.match {
			t.Errorf("Match(%q, %q) = %v, want %v", v.pattern, v.name, got, v.match)
		}
	}
}

func TestGlobDialectTraps(t *testing.T) {
	tests := []struct {
		pattern, name string
		match         bool
	}{
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "aXbY", false},
		{"*.*", "a.b.c", true},
		{"**", "", true},
		{"a/*", "a/b/c", true},
		{"[a-c-e]", "c", true},
		{"[a-c-e]", "e", true},
		{"[!a-c]", "d", true},
		{"[!a-c]", "b", false},
		{"x[", "x[", true},
		{"[é-ë]", "ê", true},
		{"?", "", false},
		{"*x", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxy", false},
	}
	for _, v := range tests {
		if got := CompileGlob(v.pattern).Match(v.name); got != v.match {
			t.Errorf("Match(%q, %q) = %v, want %v", v.pattern, v.name, got, v.match)
		}
	}
}

func FuzzGlob(f *testing.F) {
	for _, v := range globVectors {
		f.Add(v.pattern, v.name)
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		g := CompileGlob(pattern)
		_ = g.Match(name)
		if !HasMeta(pattern) && g.Match(name) != (pattern == name) {
			t.Fatalf("a pattern without metacharacters must match only itself: %q vs %q", pattern, name)
		}
		// Splitting off the literal prefix must not change what matches:
		// the whole pattern as tokens is the reference.
		whole := &Glob{tokens: compileTokens(pattern)}
		if got, want := g.Match(name), whole.Match(name); got != want {
			t.Fatalf("CompileGlob(%q).Match(%q) = %v, the unsplit pattern says %v", pattern, name, got, want)
		}
		if strings.HasPrefix(name, g.Prefix()) {
			if got, want := g.MatchAfterPrefix(name), whole.Match(name); got != want {
				t.Fatalf("CompileGlob(%q).MatchAfterPrefix(%q) = %v, want %v", pattern, name, got, want)
			}
		}
	})
}
