package keyindex

import (
	"iter"
	"slices"
	"sync"

	"github.com/celine-eu/governanced/internal/strindex"
)

// Index holds a fixed list of entries — the sources keys of an app or of a
// tree, or depends_on entries — each a text that may be a glob, and answers
// three questions about a name:
//
//   - Lookup, AppendEqual: the entries spelled exactly as the name;
//   - AppendPatterns: the entries that, read as globs, match the name (the
//     keys a dataset name resolves through);
//   - AppendTexts, AppendMatches: the entries a glob matches, read as text
//     (the keys a depends_on pattern names).
//
// An entry is known by its position in the list. An Index is immutable and
// safe for concurrent use.
type Index struct {
	exact *strindex.Index // text → first position; exact.Key(i) is entry i's text
	next  []int32         // the next entry with the same text, or -1; nil when no text repeats

	// The entries with a metacharacter, ascending: glob k is entry
	// globAt[k]. Listed rather than kept in a table by entry, which would
	// be mostly nil: most keys are literal.
	globAt []int32
	// Where the globs are compiled: an index made by New holds its own in
	// one set; a join reads its parts' sets where they are, glob k being
	// glob k - setFirst[s] of sets[s], s = setOf[k] (both nil with one
	// set).
	sets     []*globSet
	setOf    []int32
	setFirst []int32

	// What AppendPatterns looks up and what AppendTexts looks up, each
	// built when first asked (or, for the first, by FileGlobs). An app's
	// index is joined into its tree's, which files every glob again under
	// the tree's anchors: the app's own filing would be a second copy of
	// every anchor, made for the few questions asked of one app alone.
	patternsOnce sync.Once
	patterns     *patternIndex
	textsOnce    sync.Once
	texts        *textIndex
}

// globSet is the globs of an index made by New, compiled back to back,
// with no pointer among them for the collector to follow: glob j's
// program is ops[start[j]:start[j+1]], over its entry's text as the index
// holds it, and its classes' ranges are in ranges. A set is a handful of
// allocations however many globs it holds, where a Glob of their own
// would be two or three a glob (the Glob, its ops, its ranges), each
// holding pointers the collector follows.
type globSet struct {
	ops    []op
	start  []int32
	ranges [][2]rune
}

// where is the set glob k is held in, and the index's number for the
// set's first glob.
func (ix *Index) where(k int) (set, first int32) {
	if ix.setOf == nil {
		return 0, 0
	}
	set = ix.setOf[k]
	return set, ix.setFirst[set]
}

// glob is glob k of the index, viewed where it is held.
func (ix *Index) glob(k int) Glob { return ix.globOf(k, int(ix.globAt[k])) }

// globOf is glob k, entry i.
func (ix *Index) globOf(k, i int) Glob {
	s, first := ix.where(k)
	set, j := ix.sets[s], k-int(first)
	return Glob{
		text:   ix.exact.Key(i),
		ops:    set.ops[set.start[j]:set.start[j+1]],
		ranges: set.ranges,
	}
}

// patternIndex holds the globs, each filed under one of its anchors
// (anchor.go): the one fewest other globs share, so that a name opens only
// small buckets.
type patternIndex struct {
	by       [numAnchorKinds]buckets
	floating []globEntry // globs without an anchor: tried for every name
	// refiled counts the globs filed by JoinAfter into an earlier filing
	// since the last filing of every glob (rejoin.go).
	refiled int
}

// buckets are globs grouped under anchor texts, each bucket longest
// pattern first.
type buckets struct {
	set     *strindex.PrefixSet // the anchor texts; nil when there are none
	start   []int32             // bucket b is entries[start[b]:start[b+1]]
	entries []globEntry
}

func (b *buckets) bucket(pos int) []globEntry { return b.entries[b.start[pos]:b.start[pos+1]] }

// globEntry is a glob in a bucket, with what a lookup reads before (or
// instead of) the glob itself.
type globEntry struct {
	id    int32
	glob  int32 // its place in the index's globs
	runes int32 // the pattern's length in code points: resolution's first tie rule
	// sure: every name holding the bucket's anchor matches (the glob is
	// that prefix and a *), so the glob need not run.
	sure bool
}

// New indexes texts by position. The index keeps its own copy of every
// text's bytes, back to back (Text returns it): a caller holding the
// texts elsewhere can point them at that copy and let its own go. Every
// text with a metacharacter is compiled at once (Glob); the globs are
// filed under their anchors when first asked for (FileGlobs). It panics
// beyond 2³¹ entries or 4 GiB of text, which no tree comes near.
func New(texts []string) *Index {
	ix := &Index{exact: strindex.New(texts)}
	ix.linkRepeats()
	n := 0
	for _, t := range texts {
		if HasMeta(t) {
			n++
		}
	}
	if n == 0 {
		return ix
	}
	ix.globAt = make([]int32, 0, n)
	set := &globSet{start: make([]int32, 0, n+1)}
	for i, t := range texts {
		if !HasMeta(t) {
			continue
		}
		if len(set.ops) > 1<<31-1 {
			panic("keyindex: too many globs")
		}
		ix.globAt = append(ix.globAt, int32(i))
		set.start = append(set.start, int32(len(set.ops)))
		// Over the index's copy of the text, where the glob reads its runs.
		set.ops, set.ranges = compile(set.ops, set.ranges, ix.exact.Key(i))
	}
	set.start = append(set.start, int32(len(set.ops)))
	// Each held at its size, the appends' spare room let go.
	set.ops, set.ranges = slices.Clone(set.ops), slices.Clone(set.ranges)
	ix.sets = []*globSet{set}
	return ix
}

// Join is one index of the entries of parts, back to back: entry i of
// parts[k] is entry i + the sum of the lengths of parts[:k]. The texts and
// the compiled globs are the parts' own, shared: joining costs no
// compilation and no second copy of them.
func Join(parts []*Index) *Index {
	exact := make([]*strindex.Index, len(parts))
	nGlobs, nSets := 0, 0
	for k, p := range parts {
		exact[k] = p.exact
		nGlobs, nSets = nGlobs+len(p.globAt), nSets+len(p.sets)
	}
	// The parts hold their texts packed: the joined index reads them
	// there rather than copying every key's bytes, or even every key's
	// string header, a second time.
	ix := &Index{exact: strindex.Join(exact)}
	if nGlobs > 0 {
		ix.globAt = make([]int32, 0, nGlobs)
		ix.sets = make([]*globSet, 0, nSets)
		if nSets > 1 {
			ix.setOf, ix.setFirst = make([]int32, 0, nGlobs), make([]int32, 0, nSets)
		}
		at := int32(0)
		for _, p := range parts {
			s0, g0 := int32(len(ix.sets)), int32(len(ix.globAt))
			ix.sets = append(ix.sets, p.sets...)
			for k, i := range p.globAt {
				ix.globAt = append(ix.globAt, at+i)
				if ix.setOf != nil {
					// A set's globs are consecutive and it holds one at least.
					s, first := p.where(k)
					ix.setOf = append(ix.setOf, s0+s)
					if k == int(first) {
						ix.setFirst = append(ix.setFirst, g0+first)
					}
				}
			}
			at += int32(p.Len())
		}
	}
	ix.linkRepeats()
	return ix
}

// FileGlobs files the globs under their anchors now, as the first
// AppendPatterns or AppendLongest otherwise does: for an index about to
// be shared by concurrent readers, none of whom should wait for it.
func (ix *Index) FileGlobs() { ix.patternSide() }

func (ix *Index) patternSide() *patternIndex {
	ix.patternsOnce.Do(func() { ix.patterns = ix.fileGlobs() })
	return ix.patterns
}

// linkRepeats chains the entries whose text an earlier entry already has,
// as the exact index found them while filing the texts.
func (ix *Index) linkRepeats() {
	repeats := ix.exact.Repeats()
	if len(repeats) == 0 {
		return
	}
	ix.next = make([]int32, ix.Len())
	for j := range ix.next {
		ix.next[j] = -1
	}
	tail := map[int32]int32{} // first of a repeated text → its last entry so far
	for _, r := range repeats {
		last, ok := tail[r.First]
		if !ok {
			last = r.First
		}
		ix.next[last] = r.Pos
		tail[r.First] = r.Pos
	}
}

// fileGlobs files every glob under the anchor that the fewest globs
// share (ties: the kind cheapest to probe, then the longer text).
//
// A glob's anchors are worked out twice, once to count them and once to
// choose among them, into one scratch list: a tree's index files its
// globs again on every reload, and keeping every glob's anchors between
// the two passes made a list the size of the tree's globs each time.
func (ix *Index) fileGlobs() *patternIndex {
	pi := &patternIndex{}
	if len(ix.globAt) == 0 {
		return pi
	}
	var scratch []anchor
	// How many globs hold each anchor, and the bucket of those filed
	// under it; about one anchor a glob in a tree's keys.
	freq := make(map[anchor]anchorUse, len(ix.globAt))
	for k := range ix.globAt {
		g := ix.glob(k)
		scratch = uniqueAnchors(g.anchors(scratch[:0]), 0)
		for _, a := range scratch {
			u := freq[a]
			u.globs++
			freq[a] = u
		}
	}
	var builders [numAnchorKinds]bucketBuilder
	filed := make([]filedGlob, 0, len(ix.globAt))
	for k := range ix.globAt {
		g, e := ix.entry(k)
		scratch = uniqueAnchors(g.anchors(scratch[:0]), 0)
		if len(scratch) == 0 {
			pi.floating = append(pi.floating, e)
			continue
		}
		best, bestFreq := scratch[0], freq[scratch[0]].globs
		for _, a := range scratch[1:] {
			if f := freq[a].globs; f < bestFreq || f == bestFreq && (a.kind < best.kind || a.kind == best.kind && len(a.text) > len(best.text)) {
				best, bestFreq = a, f
			}
		}
		u := freq[best]
		if u.bucket == 0 {
			b := &builders[best.kind]
			b.texts = append(b.texts, best.text)
			u.bucket = int32(len(b.texts))
			freq[best] = u
		}
		filed = append(filed, fileUnder(best.kind, u.bucket-1, g, e))
	}
	for k := range builders {
		pi.by[k] = builders[k].build(anchorKind(k), filed)
	}
	slices.SortStableFunc(pi.floating, longerFirst)
	return pi
}

// fileUnder is g, whose entry is e, filed in the bucket of kind at
// bucket: sure when that bucket's anchor is g's prefix and g is that
// prefix and a *.
func fileUnder(kind anchorKind, bucket int32, g Glob, e globEntry) filedGlob {
	e.sure = kind == anchorPrefix && g.isPrefixStar()
	return filedGlob{kind: kind, bucket: bucket, e: e}
}

// entry is ix's k-th glob and its entry in a bucket, its anchor not yet
// chosen (fileUnder sets sure).
func (ix *Index) entry(k int) (Glob, globEntry) {
	g := ix.glob(k)
	return g, globEntry{id: ix.globAt[k], glob: int32(k), runes: int32(g.runes())}
}

// longerFirst orders a bucket: longer patterns first, then by position.
func longerFirst(a, b globEntry) int {
	if a.runes != b.runes {
		return int(b.runes - a.runes)
	}
	return int(a.id - b.id)
}

// uniqueAnchors drops from as[start:] the anchors met before in it.
func uniqueAnchors(as []anchor, start int) []anchor {
	out := as[:start]
	for _, a := range as[start:] {
		if !slices.Contains(out[start:], a) {
			out = append(out, a)
		}
	}
	return out
}

// anchorUse is what filing globs records of an anchor: how many globs
// hold it, and the bucket the globs filed under it go in (from 1; 0 until
// one is).
type anchorUse struct {
	globs, bucket int32
}

// bucketBuilder holds the anchor texts of one kind globs are filed under,
// by bucket, then lays each anchor's bucket out in one list.
type bucketBuilder struct {
	texts []string
}

// filedGlob is a glob and the bucket of the anchor it is filed under.
type filedGlob struct {
	kind   anchorKind
	bucket int32
	e      globEntry
}

// build lays out the buckets of the globs of filed that have kind.
func (b *bucketBuilder) build(kind anchorKind, filed []filedGlob) buckets {
	if len(b.texts) == 0 {
		return buckets{}
	}
	out := buckets{
		set:   strindex.NewPrefixSet(b.texts),
		start: make([]int32, len(b.texts)+1),
	}
	for _, f := range filed {
		if f.kind == kind {
			out.start[f.bucket+1]++
		}
	}
	for g := range b.texts {
		out.start[g+1] += out.start[g]
	}
	out.entries = make([]globEntry, out.start[len(b.texts)])
	// Each bucket is filled from its end down, which leaves start[g] at the
	// bucket's first entry once every entry is placed.
	for g := range b.texts {
		out.start[g] = out.start[g+1]
	}
	for i := len(filed) - 1; i >= 0; i-- {
		f := filed[i]
		if f.kind != kind {
			continue
		}
		out.start[f.bucket]--
		out.entries[out.start[f.bucket]] = f.e
	}
	for g := range b.texts {
		slices.SortFunc(out.bucket(g), longerFirst)
	}
	return out
}

// Len is the number of entries, repeats included.
func (ix *Index) Len() int { return ix.exact.Len() }

// Text is entry i's text, as the index holds it.
func (ix *Index) Text(i int) string { return ix.exact.Key(i) }

// Glob is entry i compiled as a glob, as the index holds it; ok is false
// when its text has no metacharacter.
func (ix *Index) Glob(i int) (g Glob, ok bool) {
	if k, ok := slices.BinarySearch(ix.globAt, int32(i)); ok {
		return ix.glob(k), true
	}
	return Glob{}, false
}

// Globs is the number of entries with a metacharacter.
func (ix *Index) Globs() int { return len(ix.globAt) }

// Lookup returns the first entry spelled exactly as name, or -1.
func (ix *Index) Lookup(name string) int { return ix.exact.Lookup(name) }

// Repeats yields every entry whose text an earlier entry has, with that
// first entry, in entry order: what the index found while filing the
// texts, so that a caller asking which texts repeat needs no table of its
// own.
func (ix *Index) Repeats() iter.Seq2[int, int] {
	return func(yield func(first, repeat int) bool) {
		for _, r := range ix.exact.Repeats() {
			if !yield(int(r.First), int(r.Pos)) {
				return
			}
		}
	}
}

// Repeated reports whether a later entry has entry i's text.
func (ix *Index) Repeated(i int) bool { return ix.next != nil && ix.next[i] >= 0 }

// AppendEqual appends to dst every entry spelled exactly as name, in
// order.
func (ix *Index) AppendEqual(dst []int32, name string) []int32 {
	i := int32(ix.exact.Lookup(name))
	if i < 0 {
		return dst
	}
	dst = append(dst, i)
	if ix.next != nil {
		for i = ix.next[i]; i >= 0; i = ix.next[i] {
			dst = append(dst, i)
		}
	}
	return dst
}

// AppendPatterns appends to dst every entry with a metacharacter whose
// glob matches name (fnmatchcase(name, entry)), in ascending order, each
// once. An entry spelled exactly as name is Lookup's answer, not this one's
// unless its glob matches name too.
//
// Only the globs filed under an anchor name holds are tried: the prefixes
// of name, and the prefixes and suffixes of each of its dot-separated
// parts, are probed against the anchor texts, a probe costing about a
// hash.
func (ix *Index) AppendPatterns(dst []int32, name string) []int32 {
	return ix.scan(dst, name, false, 0, int32(ix.Len()))
}

// AppendLongest is AppendPatterns keeping only the matching globs of the
// greatest length in code points: the candidates of resolution's first tie
// rule (governance-format.md §7.1), the rest of which is the caller's (the
// first entry of an app wins). A bucket's shorter globs are not tried once
// a longer one matched.
func (ix *Index) AppendLongest(dst []int32, name string) []int32 {
	return ix.scan(dst, name, true, 0, int32(ix.Len()))
}

// AppendLongestIn is AppendLongest among the entries lo ≤ i < hi alone:
// what the index of one part of a join answers, asked of the join. A
// part's own index files its globs under its own anchors when first asked
// (FileGlobs), a second copy of what the join filed; asking the join
// spares it.
func (ix *Index) AppendLongestIn(dst []int32, name string, lo, hi int) []int32 {
	return ix.scan(dst, name, true, int32(lo), int32(hi))
}

// scan tries the globs of every bucket name opens, each bucket longest
// first, skipping the entries outside [lo, hi); with longest, only the
// matches of the greatest length are kept. (The state is passed and
// returned rather than kept in a struct behind a pointer, so that a
// caller's buffer stays on its stack.)
func (ix *Index) scan(dst []int32, name string, longest bool, lo, hi int32) []int32 {
	if len(ix.globAt) == 0 {
		return dst
	}
	pi := ix.patternSide()
	n0, best := len(dst), int32(-1)
	if !longest {
		best = -2 // below every length: nothing is ever cut
	}
	try := func(bucket []globEntry) {
		dst, best = ix.try(dst, n0, best, bucket, name, lo, hi)
	}
	if b := &pi.by[anchorPrefix]; b.set != nil {
		b.set.Each(name, func(pos int) bool {
			try(b.bucket(pos))
			return true
		})
	}
	pre, suf := &pi.by[anchorPartPrefix], &pi.by[anchorPartSuffix]
	if pre.set != nil || suf.set != nil {
		parts(name, func(part string) {
			if pre.set != nil {
				pre.set.Each(part, func(pos int) bool {
					try(pre.bucket(pos))
					return true
				})
			}
			if suf.set != nil {
				suf.set.EachSuffix(part, func(pos int) bool {
					try(suf.bucket(pos))
					return true
				})
			}
		})
	}
	try(pi.floating)
	if found := dst[n0:]; len(found) > 1 {
		// Buckets are met in no particular order, and a part-anchored one
		// is opened once for each part holding its text.
		slices.Sort(found)
		dst = dst[:n0+len(slices.Compact(found))]
	}
	return dst
}

// try appends the globs of bucket in [lo, hi) that match name. With
// best ≥ -1 it keeps only the longest matches (dst[n0:] holds those of
// length best so far) and stops at the first glob shorter than them.
func (ix *Index) try(dst []int32, n0 int, best int32, bucket []globEntry, name string, lo, hi int32) ([]int32, int32) {
	for _, e := range bucket {
		if e.runes < best {
			return dst, best
		}
		if e.id < lo || e.id >= hi {
			continue
		}
		if !e.sure {
			if g := ix.globOf(int(e.glob), int(e.id)); !g.Match(name) {
				continue
			}
		}
		if best >= -1 && e.runes > best {
			best, dst = e.runes, dst[:n0]
		}
		dst = append(dst, e.id)
	}
	return dst, best
}

// AppendTexts appends to dst every entry whose text pattern matches
// (fnmatchcase(entry, pattern)), in ascending order, each once: for a
// pattern without metacharacters, the entries spelled as it.
func (ix *Index) AppendTexts(dst []int32, pattern string) []int32 {
	if !HasMeta(pattern) {
		return ix.AppendEqual(dst, pattern)
	}
	return ix.AppendMatches(dst, Compile(pattern))
}

// AppendMatches is AppendTexts for a compiled pattern.
//
// The candidates are the entries holding the pattern's most selective
// anchor: the entries starting with its literal prefix, or those with a
// part starting or ending with the text a dot bounds in it, whichever are
// fewest (counted without being listed). Only they are matched.
func (ix *Index) AppendMatches(dst []int32, g *Glob) []int32 {
	t := ix.textSide()
	n0 := len(dst)
	c := t.candidates(g, ix)
	switch c.kind {
	case candAll:
		for i := range ix.Len() {
			if g.Match(ix.Text(i)) {
				dst = append(dst, int32(i))
			}
		}
		return dst
	case candSorted:
		for _, id := range t.byText[c.lo:c.hi] {
			if g.Match(ix.Text(int(id))) {
				dst = append(dst, id)
			}
		}
	default:
		for k := c.lo; k < c.hi; k++ {
			p := k
			if c.kind == candPartSuffix {
				p = int(t.rev[k])
			}
			for _, id := range t.post[t.first[p]:t.first[p+1]] {
				if g.Match(ix.Text(int(id))) {
					dst = append(dst, id)
				}
			}
		}
	}
	found := dst[n0:]
	slices.Sort(found)
	return dst[:n0+len(slices.Compact(found))]
}

func (ix *Index) textSide() *textIndex {
	ix.textsOnce.Do(func() { ix.texts = newTextIndex(ix) })
	return ix.texts
}
