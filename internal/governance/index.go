package governance

import (
	"slices"
	"sync/atomic"
	"unicode/utf8"
)

// index answers resolution without scanning every pattern: exact keys in a map,
// globs bucketed by their literal prefix (the text before the first
// metacharacter), each bucket ordered by the tie rule so the first match in a
// bucket is that bucket's best.
type index struct {
	exact      map[string]int // key → position in sources (first occurrence)
	buckets    map[string][]globEntry
	prefixLens []int // distinct literal-prefix lengths, in bytes, ascending
	globCount  int

	// resolved caches merge(defaults, source) per source position, filled on
	// first use: the merged rule is a pure function of two immutable blocks, so
	// two goroutines racing to fill a slot store equal values, and a lookup on
	// the hot path allocates nothing after the first.
	resolved []atomic.Pointer[Rule]
}

type globEntry struct {
	glob   *Glob
	pos    int // position in sources: ties go to the earlier key
	length int // pattern length in code points
}

func buildIndex(sources []Source) *index {
	ix := &index{exact: make(map[string]int, len(sources)), buckets: map[string][]globEntry{}, resolved: make([]atomic.Pointer[Rule], len(sources))}
	lens := map[int]bool{}
	for i, s := range sources {
		if _, dup := ix.exact[s.Key]; !dup {
			ix.exact[s.Key] = i
		}
		if !HasMeta(s.Key) {
			continue
		}
		prefix := literalPrefix(s.Key)
		ix.buckets[prefix] = append(ix.buckets[prefix], globEntry{glob: CompileGlob(s.Key), pos: i, length: utf8.RuneCountInString(s.Key)})
		lens[len(prefix)] = true
		ix.globCount++
	}
	for _, b := range ix.buckets {
		slices.SortStableFunc(b, better)
	}
	for l := range lens {
		ix.prefixLens = append(ix.prefixLens, l)
	}
	slices.Sort(ix.prefixLens)
	return ix
}

// better orders glob entries by the resolution tie rule: longer pattern text
// first, then earlier in sources.
func better(a, b globEntry) int {
	if a.length != b.length {
		return b.length - a.length
	}
	return a.pos - b.pos
}

func literalPrefix(key string) string {
	for i := 0; i < len(key); i++ {
		switch key[i] {
		case '*', '?', '[':
			return key[:i]
		}
	}
	return key
}

// lookup returns the position of the source that resolves name and how it
// matched, or -1.
func (ix *index) lookup(name string) (int, MatchKind) {
	if i, ok := ix.exact[name]; ok {
		return i, MatchExact
	}
	if ix.globCount == 0 {
		return -1, MatchDefaults
	}
	var best globEntry
	found := false
	for _, l := range ix.prefixLens {
		if l > len(name) {
			break
		}
		bucket, ok := ix.buckets[name[:l]]
		if !ok {
			continue
		}
		for _, e := range bucket {
			if found && better(e, best) >= 0 {
				break // the rest of this bucket cannot beat the best so far
			}
			if e.glob.Match(name) {
				best, found = e, true
				break
			}
		}
	}
	if !found {
		return -1, MatchDefaults
	}
	return best.pos, MatchGlob
}
