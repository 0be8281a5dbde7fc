package keyindex

import "testing"

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
		if got := Compile(v.pattern).Match(v.name); got != v.match {
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
		if got := Compile(v.pattern).Match(v.name); got != v.match {
			t.Errorf("Match(%q, %q) = %v, want %v", v.pattern, v.name, got, v.match)
		}
	}
}

func FuzzGlob(f *testing.F) {
	for _, v := range globVectors {
		f.Add(v.pattern, v.name)
	}
	f.Add("a*b?c*[x-z]*d", "aXXbQcYYyZZd")
	f.Add("*\xe2\x82*", "x\xe2\x82\xac")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		g := Compile(pattern)
		if !HasMeta(pattern) && g.Match(name) != (pattern == name) {
			t.Fatalf("a pattern without metacharacters must match only itself: %q vs %q", pattern, name)
		}
		// The compiled program (byte runs, jumps to the next occurrence of a
		// run) must say what matching one character at a time says.
		if got, want := g.Match(name), referenceMatch(pattern, name); got != want {
			t.Fatalf("Compile(%q).Match(%q) = %v, matching character by character says %v", pattern, name, got, want)
		}
	})
}

// referenceMatch is fnmatchcase the plain way: the pattern and the name as
// characters (invalid bytes escaped), every way a star can split the name
// tried, remembered by position.
func referenceMatch(pattern, name string) bool {
	p, _ := escapedRunes(pattern)
	n, _ := escapedRunes(name)
	type tok struct {
		kind    byte // 'l' literal, '?', '*', 'c' class
		r       rune
		ranges  [][2]rune
		negated bool
	}
	var toks []tok
	for i := 0; i < len(p); {
		switch p[i] {
		case '*':
			toks = append(toks, tok{kind: '*'})
			i++
		case '?':
			toks = append(toks, tok{kind: '?'})
			i++
		case '[':
			if ranges, negated, next, ok := parseClass(nil, p, i); ok {
				toks = append(toks, tok{kind: 'c', ranges: ranges, negated: negated})
				i = next
				continue
			}
			toks = append(toks, tok{kind: 'l', r: '['})
			i++
		default:
			toks = append(toks, tok{kind: 'l', r: p[i]})
			i++
		}
	}
	// ok[j] after step i: toks[:i] can match n[:j].
	ok := make([]bool, len(n)+1)
	ok[0] = true
	for _, t := range toks {
		next := make([]bool, len(n)+1)
		for j := range ok {
			if !ok[j] {
				continue
			}
			switch t.kind {
			case '*':
				for k := j; k <= len(n); k++ {
					next[k] = true
				}
			default:
				if j < len(n) && (t.kind == '?' || t.kind == 'l' && t.r == n[j] || t.kind == 'c' && inClass(t.ranges, t.negated, n[j])) {
					next[j+1] = true
				}
			}
		}
		ok = next
	}
	return ok[len(n)]
}
