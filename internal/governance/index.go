package governance

import (
	"sync/atomic"

	"github.com/celine-eu/governanced/internal/keyindex"
)

// index answers resolution (governance-format.md §7) without trying every
// key: the sources keys in a keyindex.Index, which finds the exact key and
// the globs that match a name.
type index struct {
	keys *keyindex.Index

	// resolved caches merge(defaults, source) per source position, filled on
	// first use: the merged rule is a pure function of two immutable blocks, so
	// two goroutines racing to fill a slot store equal values, and a lookup on
	// the hot path allocates nothing after the first. The slots themselves
	// are made on the first resolution (cache): a server's configurations
	// are resolved per dataset by its own reading, never through this
	// cache, and a tree's hundred thousand slots would be held for nothing.
	resolved atomic.Pointer[[]atomic.Pointer[Rule]]
}

// cache is the index's slots of merged rules, n of them (one per source),
// made on the first call; concurrent first calls agree on one.
func (ix *index) cache(n int) []atomic.Pointer[Rule] {
	if p := ix.resolved.Load(); p != nil {
		return *p
	}
	slots := make([]atomic.Pointer[Rule], n)
	if ix.resolved.CompareAndSwap(nil, &slots) {
		return slots
	}
	return *ix.resolved.Load()
}

func buildIndex(sources []Source) *index {
	keys := make([]string, len(sources))
	for i, s := range sources {
		keys[i] = s.Key
	}
	ix := &index{keys: keyindex.New(keys)}
	// The index holds every key's bytes back to back; pointing the sources
	// at that copy lets the parser's scattered key strings go.
	for i := range sources {
		sources[i].Key = ix.keys.Text(i)
	}
	return ix
}

// extendIndex is the index of sources whose first n keys are those base
// indexes, in the same order (a merge's sources: the base's, then the
// overlay's new keys). The base's key texts and compiled globs are
// shared, not copied and compiled again: the base document stays alive
// anyway (the dependency graph reads its keys), and an overlay seldom adds
// keys.
func extendIndex(base *index, sources []Source, n int) *index {
	if n == len(sources) {
		return &index{keys: base.keys}
	}
	added := make([]string, 0, len(sources)-n)
	for _, s := range sources[n:] {
		added = append(added, s.Key)
	}
	ix := &index{keys: keyindex.Join([]*keyindex.Index{base.keys, keyindex.New(added)})}
	for i := n; i < len(sources); i++ {
		sources[i].Key = ix.keys.Text(i)
	}
	return ix
}

// lookup returns the position of the source that resolves name, how it
// matched and the key that matched, or -1.
func (ix *index) lookup(name string) (int, MatchKind, string) {
	if i := ix.keys.Lookup(name); i >= 0 {
		return i, MatchExact, name
	}
	// The longest matching globs, in sources order: the first wins (§7.1
	// step 2).
	var buf [8]int32
	longest := ix.keys.AppendLongest(buf[:0], name)
	if len(longest) == 0 {
		return -1, MatchDefaults, ""
	}
	best := int(longest[0])
	return best, MatchGlob, ix.keys.Text(best)
}

// Keys is the index of the configuration's sources keys, by position:
// what a tree-wide index joins (keyindex.Join) without compiling a glob
// again.
func (c *Config) Keys() *keyindex.Index { return c.idx().keys }

// Glob is a sources key compiled as a pattern of the format's glob dialect
// (§7.2: Python's fnmatchcase).
type Glob = keyindex.Glob

// HasMeta reports whether a key can match anything but itself.
func HasMeta(key string) bool { return keyindex.HasMeta(key) }

// CompileGlob compiles a pattern. Every pattern compiles: a malformed
// bracket reads as literals, as in Python.
func CompileGlob(pattern string) *Glob { return keyindex.Compile(pattern) }
