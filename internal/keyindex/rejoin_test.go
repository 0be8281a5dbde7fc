package keyindex

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// joinAfter is JoinAfter(Join(prevParts) with its globs filed, prevParts,
// parts), and whether it refiled prev's filing rather than file afresh.
func joinAfter(prevParts, parts []*Index) (*Index, bool) {
	prev := Join(prevParts)
	prev.FileGlobs()
	ix := JoinAfter(prev, prevParts, parts)
	refiled := false
	for k := range ix.patternSide().by {
		if s := ix.patterns.by[k].set; s != nil && s == prev.patterns.by[k].set {
			refiled = true
		}
	}
	return ix, refiled
}

// TestJoinAfter: an index joined after another answers as the join of its
// parts; the globs of the parts it shares with the earlier one keep their
// filing, and a glob with an anchor the earlier one lacks, or parts
// reordered, make it file afresh.
func TestJoinAfter(t *testing.T) {
	a := []string{"datasets.a_silver.x_*", "datasets.a_silver.x_1", "datasets.*_silver.y_*"}
	b := []string{"datasets.b_gold.*", "datasets.b_gold.k", "*.b_gold.k?"}
	c := []string{"datasets.c.lit", "datasets.[cd].*"}
	newAnchor := []string{"elsewhere.*"}
	ia, ib, ic := New(a), New(b), New(c)
	// Three globs filed under one anchor: a lookup of the longest match
	// stops at the first glob shorter than one matched, so an added glob
	// must take its place by length in its bucket.
	shortTexts, longer := []string{"datasets.a_silver.x_*", "datasets.a_silver.x_??"}, []string{"datasets.a_silver.x_??*"}
	short := New(shortTexts)
	// A part of more globs than a rejoin files before it files them all.
	var largeTexts []string
	for i := range 2 * maxRefiled {
		largeTexts = append(largeTexts, fmt.Sprintf("datasets.l_%d.*", i))
	}
	large := New(largeTexts)
	// Likewise for the globs no anchor files, which every lookup tries.
	floatingTexts := []string{"*.*", "*", "datasets.a_silver.x_*"}
	floating := New(floatingTexts)
	for _, tc := range []struct {
		name    string
		prev    []*Index
		parts   []*Index
		texts   []string
		refiled bool
	}{
		{"a literal appended to the middle part", []*Index{ia, ib, ic}, []*Index{ia, New(append(slices.Clone(b), "datasets.b_gold.new")), ic},
			slices.Concat(a, b, []string{"datasets.b_gold.new"}, c), true},
		{"a part removed", []*Index{ia, ib, ic}, []*Index{ia, ic}, slices.Concat(a, c), true},
		{"a part added with known anchors", []*Index{ia, ic}, []*Index{ia, New([]string{"datasets.a_silver.x_?", "x.b_gold.kk"}), ic},
			slices.Concat(a, []string{"datasets.a_silver.x_?", "x.b_gold.kk"}, c), true},
		{"the first part replaced", []*Index{ia, ib, ic}, []*Index{New(slices.Clone(a)), ib, ic}, slices.Concat(a, b, c), true},
		{"a longer glob added to a bucket", []*Index{short}, []*Index{short, New(longer)}, slices.Concat(shortTexts, longer), true},
		{"a longer glob added to the unanchored", []*Index{floating}, []*Index{floating, New([]string{"*.*.*"})}, slices.Concat(floatingTexts, []string{"*.*.*"}), true},
		{"a small part built again beside a large one", []*Index{large, ib}, []*Index{large, New(slices.Clone(b))}, slices.Concat(largeTexts, b), true},
		{"a large part built again", []*Index{large, ib}, []*Index{New(slices.Clone(largeTexts)), ib}, slices.Concat(largeTexts, b), false},
		{"a glob with a new anchor", []*Index{ia, ib}, []*Index{ia, ib, New(newAnchor)}, slices.Concat(a, b, newAnchor), false},
		{"parts reordered", []*Index{ia, ib, ic}, []*Index{ic, ib, ia}, slices.Concat(c, b, a), false},
		{"a part repeated", []*Index{ia, ib}, []*Index{ia, ia, ib}, slices.Concat(a, a, b), false},
		{"no globs before", []*Index{New([]string{"x.y"})}, []*Index{ia}, a, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix, refiled := joinAfter(tc.prev, tc.parts)
			if refiled != tc.refiled {
				t.Errorf("refiled %v, want %v", refiled, tc.refiled)
			}
			queries := append(slices.Clone(tc.texts), "datasets.a_silver.x_2", "datasets.q_silver.y_z", "datasets.b_gold.kz",
				"datasets.d.any", "elsewhere.x", "nothing", "datasets.a_silver.x_ab", "a.b.c")
			checkIndex(t, ix, tc.texts, queries)
		})
	}
}

// FuzzJoinAfter holds an index joined after another to the answers of
// matching every text one by one, for parts cut from the texts and edited
// as reloads edit apps: one replaced by a copy with a text more, one
// dropped, one added.
func FuzzJoinAfter(f *testing.F) {
	f.Add(strings.Join(shapeKeys, ","), "datasets.*_silver.app_0010_weather_*", uint8(0), uint8(1))
	f.Add("a.*.b,*.b,a.b.c,[.]x,a.b,x.*", "a.b.b", uint8(1), uint8(0))
	f.Add("a.*,b.*,c.*,a.x,b.y", "b.y", uint8(2), uint8(2))
	f.Fuzz(func(t *testing.T, joined, query string, edit, at uint8) {
		texts := strings.Split(joined, ",")
		if len(texts) > 64 {
			texts = texts[:64]
		}
		// Up to four parts, cut evenly.
		var cuts [][]string
		n := min(4, len(texts))
		for k := range n {
			cuts = append(cuts, texts[k*len(texts)/n:(k+1)*len(texts)/n])
		}
		prev := make([]*Index, len(cuts))
		for k, c := range cuts {
			prev[k] = New(c)
		}
		parts, now := slices.Clone(prev), slices.Clone(cuts)
		k := int(at) % len(cuts)
		switch edit % 3 {
		case 0: // one app's file edited: its index built again, a text more
			now[k] = append(slices.Clone(now[k]), query)
			parts[k] = New(now[k])
		case 1: // one app removed
			parts, now = slices.Delete(parts, k, k+1), slices.Delete(now, k, k+1)
		case 2: // one app added before k
			added := []string{query, texts[len(texts)-1]}
			parts, now = slices.Insert(parts, k, New(added)), slices.Insert(now, k, added)
		}
		ix, _ := joinAfter(prev, parts)
		all := slices.Concat(now...)
		queries := []string{query}
		for i := 0; i < len(all); i += 1 + len(all)/8 {
			queries = append(queries, all[i])
		}
		checkIndex(t, ix, all, queries)
	})
}

// TestJoinAfterFilesAfresh: rejoins that each file a few globs into the
// filing before add up, and once more than maxRefiled and a quarter of
// the globs have been, the next files every glob afresh; the answers are
// the join's throughout.
func TestJoinAfterFilesAfresh(t *testing.T) {
	var large []string
	for i := range 2 * maxRefiled {
		large = append(large, fmt.Sprintf("datasets.l_%d.*", i))
	}
	small := []string{"datasets.l_1.x*", "datasets.l_2.?"}
	prevParts := []*Index{New(large), New(small)}
	prev := Join(prevParts)
	prev.FileGlobs()
	texts := slices.Concat(large, small)
	fresh := 0
	for step := range 2 * maxRefiled {
		parts := []*Index{prevParts[0], New(slices.Clone(small))}
		ix := JoinAfter(prev, prevParts, parts)
		refiled := ix.patternSide().by[anchorPrefix].set == prev.patternSide().by[anchorPrefix].set
		if want := prev.patterns.refiled+len(small) <= maxRefiled || prev.patterns.refiled+len(small) <= len(texts)/4; refiled != want {
			t.Fatalf("step %d, %d globs refiled before: refiled %v, want %v", step, prev.patterns.refiled, refiled, want)
		}
		if !refiled {
			fresh++
		}
		checkIndex(t, ix, texts, []string{"datasets.l_1.xy", "datasets.l_2.z", "datasets.l_7.q"})
		prev, prevParts = ix, parts
	}
	if fresh == 0 {
		t.Error("no rejoin filed every glob afresh")
	}
}

// TestJoinAfterOtherParts: parts said to be prev's that are not (their
// entries and globs do not add up to prev's) make JoinAfter file afresh,
// and answer as the join.
func TestJoinAfterOtherParts(t *testing.T) {
	a, b := []string{"x.*", "x.y"}, []string{"x.*", "x.?", "z"}
	pa, pb := New(a), New(b)
	prev := Join([]*Index{pa})
	prev.FileGlobs()
	parts := []*Index{pb, pa}
	ix := JoinAfter(prev, parts, parts)
	if ix.patternSide().by[anchorPrefix].set == prev.patternSide().by[anchorPrefix].set {
		t.Error("refiled a filing its parts are not")
	}
	checkIndex(t, ix, slices.Concat(b, a), []string{"x.q", "y.q", "z", "x.*"})
}
