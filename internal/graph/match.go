package graph

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/strindex"
)

// Matches reports whether a depends_on pattern names a sources key (graph.md
// §5): either of the two, read as a Python fnmatchcase pattern, matches the
// whole of the other read as text. Two globs therefore match only when one,
// as plain text, matches the other.
func Matches(pattern, key string) bool {
	return fnmatch(key, pattern) || fnmatch(pattern, key)
}

// fnmatch is Python's fnmatchcase(text, pattern). A pattern is not always
// matched by its own text: "[a]" matches only "a".
func fnmatch(text, pattern string) bool {
	if !governance.HasMeta(pattern) {
		return text == pattern
	}
	return governance.CompileGlob(pattern).Match(text)
}

// matchIndex holds a fixed list of strings (every sources key of a graph, or
// every depends_on pattern) and finds those that Match a query, in either
// direction, without comparing the query with every entry:
//
//   - The query as text, the entries as patterns: only an entry with a
//     metacharacter can match text other than itself, and it matches only
//     text that starts with its literal prefix (the text before its first
//     metacharacter). Such entries are bucketed by that prefix
//     (strindex.Buckets), so a query tries only the buckets of prefixes it
//     starts with: a few probes per query, however many entries.
//   - The query as a pattern, the entries as text: a query without
//     metacharacters matches only an entry equal to it (a map). A query with
//     them matches only entries that end with its literal suffix (the text
//     after its last metacharacter or bracket) and start with its literal
//     prefix. When that suffix holds a dot, a matching entry's text after its
//     own last dot is the suffix's text after its last dot (the table name of
//     datasets.*_gold.weather__forecast_hourly): entries are grouped by that
//     tail in a map, and only the query's group is compared. Otherwise the
//     entries starting with the prefix are a range of the entries sorted by
//     text, found by binary search. Either candidate set is then compared
//     with the compiled query.
//
// A query with neither a dotted suffix nor a long prefix (datasets.*) still
// compares every entry its prefix allows; those are then mostly matches.
type matchIndex struct {
	texts  []string
	first  map[string]int32 // the first entry of each text
	next   []int32          // the next entry with the same text, or -1
	byText []int32          // entry ids by text
	byTail map[string][]int32
	globs  *strindex.Buckets[globEntry]
}

type globEntry struct {
	id int32
	g  *governance.Glob
}

func newMatchIndex(texts []string) *matchIndex {
	ix := &matchIndex{
		texts:  texts,
		first:  make(map[string]int32, len(texts)),
		next:   make([]int32, len(texts)),
		byText: make([]int32, len(texts)),
		byTail: map[string][]int32{},
	}
	var globs strindex.BucketsBuilder[globEntry]
	last := make(map[string]int32, len(texts))
	for i, t := range texts {
		id := int32(i)
		ix.next[i] = -1
		if prev, ok := last[t]; ok {
			ix.next[prev] = id
		} else {
			ix.first[t] = id
		}
		last[t] = id
		ix.byText[i] = id
		tail := t[strings.LastIndexByte(t, '.')+1:]
		ix.byTail[tail] = append(ix.byTail[tail], id)
		if governance.HasMeta(t) {
			g := governance.CompileGlob(t)
			globs.Add(g.Prefix(), globEntry{id: id, g: g})
		}
	}
	slices.SortFunc(ix.byText, func(a, b int32) int { return strings.Compare(texts[a], texts[b]) })
	ix.globs = globs.Build(func([]globEntry) {})
	return ix
}

// lookup appends to dst[:0] the ids of the entries matching q (§5), in
// ascending order, each once.
func (ix *matchIndex) lookup(q string, dst []int32) []int32 {
	out := dst[:0]
	if !governance.HasMeta(q) {
		if id, ok := ix.first[q]; ok {
			for ; id >= 0; id = ix.next[id] {
				out = append(out, id)
			}
		}
	} else {
		g := governance.CompileGlob(q)
		for _, id := range ix.candidates(q) {
			if g.Match(ix.texts[id]) {
				out = append(out, id)
			}
		}
	}
	ix.globs.Each(q, func(group []globEntry) bool {
		for _, e := range group {
			if e.g.MatchAfterPrefix(q) {
				out = append(out, e.id)
			}
		}
		return true
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// candidates are the entries that a pattern q could match as text: those
// whose last dotted part is q's literal one, or else those sharing its
// literal prefix, whichever are fewer. Text that is not UTF-8 is compared
// byte by byte by the glob, so no literal part is assumed of it and every
// entry is a candidate.
func (ix *matchIndex) candidates(q string) []int32 {
	if !utf8.ValidString(q) {
		return ix.byText
	}
	byPrefix := prefixRange(ix.byText, ix.texts, governance.LiteralPrefix(q))
	if suffix := literalSuffix(q); strings.Contains(suffix, ".") {
		if byTail := ix.byTail[suffix[strings.LastIndexByte(suffix, '.')+1:]]; len(byTail) < len(byPrefix) {
			return byTail
		}
	}
	return byPrefix
}

// prefixRange is the run of ids (sorted by their text in texts) whose text
// starts with prefix.
func prefixRange(ids []int32, texts []string, prefix string) []int32 {
	if prefix == "" {
		return ids
	}
	lo, _ := slices.BinarySearchFunc(ids, prefix, func(id int32, p string) int { return strings.Compare(texts[id], p) })
	hi := lo
	for n := len(ids) - lo; n > 0; {
		// The ids with the prefix are contiguous from lo: find where they end.
		half := n / 2
		if strings.HasPrefix(texts[ids[hi+half]], prefix) {
			hi += half + 1
			n -= half + 1
		} else {
			n = half
		}
	}
	return ids[lo:hi]
}

// literalSuffix is the text after a pattern's last metacharacter or bracket:
// every text the pattern matches ends with it. A run free of "]" cannot lie
// inside a bracket expression, which must end with one.
func literalSuffix(p string) string {
	i := strings.LastIndexAny(p, "*?[]")
	return p[i+1:]
}
