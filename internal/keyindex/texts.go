package keyindex

import (
	"slices"
	"strings"
)

// textIndex finds the entries a glob can match, read as text: each
// entry's dot-separated parts in a sorted dictionary (a range of it holds
// the parts starting with a text), the same parts ordered by their
// reversed text (the parts ending with one), and the entries sorted by
// text (the entries starting with one). A range's entries are counted from
// running totals, so the most selective anchor of a pattern is chosen
// before any entry is read.
type textIndex struct {
	byText []int32  // entries by text
	parts  []string // distinct parts, sorted; each a substring of an entry's text
	first  []int32  // parts[p]'s entries are post[first[p]:first[p+1]]
	post   []int32
	rev    []int32 // part numbers by reversed text
	revCum []int32 // revCum[k]: how many entries the parts rev[:k] hold
}

func newTextIndex(ix *Index) *textIndex {
	n := ix.Len()
	t := &textIndex{byText: make([]int32, n)}
	type keyed struct {
		text string
		id   int32
	}
	// Sorting the texts themselves, not positions read through the index,
	// keeps each comparison on two strings at hand.
	order := make([]keyed, n)
	for i := range order {
		order[i] = keyed{ix.Text(i), int32(i)}
	}
	slices.SortFunc(order, func(a, b keyed) int { return strings.Compare(a.text, b.text) })
	for i, k := range order {
		t.byText[i] = k.id
	}

	// Number the distinct parts in the order met, and each (entry, part).
	number := map[string]int32{}
	var distinct []string
	var partOf []int32 // the part of each (entry, part) pair, entry order
	var entryOf []int32
	for i := range n {
		parts(ix.Text(i), func(part string) {
			p, ok := number[part]
			if !ok {
				p = int32(len(distinct))
				number[part] = p
				distinct = append(distinct, part)
			}
			partOf = append(partOf, p)
			entryOf = append(entryOf, int32(i))
		})
	}
	number = nil
	// Sort them, and lay the entries out part by part.
	order = order[:0]
	for p, s := range distinct {
		order = append(order, keyed{s, int32(p)})
	}
	slices.SortFunc(order, func(a, b keyed) int { return strings.Compare(a.text, b.text) })
	rank := make([]int32, len(order))
	t.parts = make([]string, len(order))
	for r, k := range order {
		rank[k.id] = int32(r)
		t.parts[r] = k.text
	}
	t.first = make([]int32, len(t.parts)+1)
	for _, p := range partOf {
		t.first[rank[p]+1]++
	}
	for r := range t.parts {
		t.first[r+1] += t.first[r]
	}
	t.post = make([]int32, len(partOf))
	fill := slices.Clone(t.first[:len(t.parts)])
	for k, p := range partOf {
		r := rank[p]
		t.post[fill[r]] = entryOf[k]
		fill[r]++
	}

	// The parts by reversed text: sorted as reversed copies, which the
	// comparison reads as plain strings.
	var buf []byte
	for r, s := range t.parts {
		start := len(buf)
		for i := len(s) - 1; i >= 0; i-- {
			buf = append(buf, s[i])
		}
		order[r] = keyed{string(buf[start:]), int32(r)}
	}
	slices.SortFunc(order, func(a, b keyed) int { return strings.Compare(a.text, b.text) })
	t.rev = make([]int32, len(t.parts))
	t.revCum = make([]int32, len(t.parts)+1)
	for k, o := range order {
		t.rev[k] = o.id
		t.revCum[k+1] = t.revCum[k] + t.first[o.id+1] - t.first[o.id]
	}
	return t
}

// compareReversed compares a and b read from their ends.
func compareReversed(a, b string) int {
	for i, j := len(a)-1, len(b)-1; i >= 0 && j >= 0; i, j = i-1, j-1 {
		if a[i] != b[j] {
			if a[i] < b[j] {
				return -1
			}
			return 1
		}
	}
	return len(a) - len(b)
}

type candKind uint8

const (
	candAll        candKind = iota // every entry
	candSorted                     // byText[lo:hi]
	candPartPrefix                 // the entries of parts[lo:hi]
	candPartSuffix                 // the entries of the parts rev[lo:hi]
)

type candidates struct {
	kind   candKind
	lo, hi int
	count  int
}

// candidates picks the anchor of g with the fewest entries.
func (t *textIndex) candidates(g *Glob, ix *Index) candidates {
	best := candidates{kind: candAll, count: ix.Len()}
	var buf [8]anchor
	for _, a := range g.anchors(buf[:0]) {
		var c candidates
		switch a.kind {
		case anchorPrefix:
			lo, hi := prefixRange(len(t.byText), a.text, func(k int) string { return ix.Text(int(t.byText[k])) })
			c = candidates{kind: candSorted, lo: lo, hi: hi, count: hi - lo}
		case anchorPartPrefix:
			lo, hi := prefixRange(len(t.parts), a.text, func(k int) string { return t.parts[k] })
			c = candidates{kind: candPartPrefix, lo: lo, hi: hi, count: int(t.first[hi] - t.first[lo])}
		case anchorPartSuffix:
			lo, hi := suffixRange(t, a.text)
			c = candidates{kind: candPartSuffix, lo: lo, hi: hi, count: int(t.revCum[hi] - t.revCum[lo])}
		}
		if c.count < best.count {
			best = c
		}
	}
	return best
}

// prefixRange is the run [lo, hi) of n sorted texts that start with
// prefix.
func prefixRange(n int, prefix string, text func(int) string) (int, int) {
	lo := searchFirst(n, func(k int) bool { return text(k) >= prefix })
	hi := lo + searchFirst(n-lo, func(k int) bool { return !strings.HasPrefix(text(lo+k), prefix) })
	return lo, hi
}

// suffixRange is the run [lo, hi) of t.rev whose parts end with suffix.
func suffixRange(t *textIndex, suffix string) (int, int) {
	n := len(t.rev)
	part := func(k int) string { return t.parts[t.rev[k]] }
	lo := searchFirst(n, func(k int) bool { return compareReversed(part(k), suffix) >= 0 })
	hi := lo + searchFirst(n-lo, func(k int) bool { return !strings.HasSuffix(part(lo+k), suffix) })
	return lo, hi
}

// searchFirst is the first k in [0, n) where ok(k) holds, ok being false
// then true over the range; n when it never holds.
func searchFirst(n int, ok func(int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ok(m) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}
