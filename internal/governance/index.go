package governance

import (
	"slices"
	"sync/atomic"
	"unicode/utf8"

	"github.com/celine-eu/governanced/internal/strindex"
)

// index answers resolution without scanning every pattern: exact keys in a
// strindex.Index, globs bucketed by their literal prefix (the text before the
// first metacharacter), each bucket ordered by the tie rule so the first match
// in a bucket is that bucket's best.
type index struct {
	exact *strindex.Index              // key → position in sources (first occurrence)
	globs *strindex.Buckets[globEntry] // by literal prefix

	// resolved caches merge(defaults, source) per source position, filled on
	// first use: the merged rule is a pure function of two immutable blocks, so
	// two goroutines racing to fill a slot store equal values, and a lookup on
	// the hot path allocates nothing after the first.
	resolved []atomic.Pointer[Rule]
}

type globEntry struct {
	glob    *Glob
	key     string // the pattern, for the match's answer: at hand without another cache miss
	pos     int32  // position in sources: ties go to the earlier key
	length  int32  // pattern length in code points
	anyRest bool   // the glob is its prefix and a *: a match without reading the glob
}

func buildIndex(sources []Source) *index {
	keys := make([]string, len(sources))
	for i, s := range sources {
		keys[i] = s.Key
	}
	ix := &index{exact: strindex.New(keys), resolved: make([]atomic.Pointer[Rule], len(sources))}
	// The index holds every key's bytes back to back; pointing the sources
	// at that copy lets the parser's scattered key strings go.
	for i := range sources {
		sources[i].Key = ix.exact.Key(i)
	}
	var globs strindex.BucketsBuilder[globEntry]
	for i, s := range sources {
		if !HasMeta(s.Key) {
			continue
		}
		g := CompileGlob(s.Key)
		globs.Add(LiteralPrefix(s.Key), globEntry{glob: g, key: ix.exact.Key(i), pos: int32(i), length: int32(utf8.RuneCountInString(s.Key)), anyRest: g.anyRest})
	}
	ix.globs = globs.Build(func(b []globEntry) { slices.SortStableFunc(b, better) })
	return ix
}

// better orders glob entries by the resolution tie rule: longer pattern text
// first, then earlier in sources.
func better(a, b globEntry) int {
	if a.length != b.length {
		return int(b.length - a.length)
	}
	return int(a.pos - b.pos)
}

// LiteralPrefix is the text of a key before its first metacharacter (* ? [):
// every name a glob matches starts with it, byte for byte.
func LiteralPrefix(key string) string {
	for i := 0; i < len(key); i++ {
		switch key[i] {
		case '*', '?', '[':
			return key[:i]
		}
	}
	return key
}

// lookup returns the position of the source that resolves name, how it
// matched and the key that matched, or -1.
func (ix *index) lookup(name string) (int, MatchKind, string) {
	if i := ix.exact.Lookup(name); i >= 0 {
		return i, MatchExact, name
	}
	if ix.globs.Len() == 0 {
		return -1, MatchDefaults, ""
	}
	var best globEntry
	found := false
	ix.globs.Each(name, func(bucket []globEntry) bool {
		for _, e := range bucket {
			if found && better(e, best) >= 0 {
				break // the rest of this bucket cannot beat the best so far
			}
			if e.anyRest || e.glob.MatchAfterPrefix(name) {
				best, found = e, true
				break
			}
		}
		return true
	})
	if !found {
		return -1, MatchDefaults, ""
	}
	return int(best.pos), MatchGlob, best.key
}
