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
//     them matches only entries that start with its literal prefix and end
//     with its literal suffix (the text after its last metacharacter or
//     bracket). The entries are kept sorted by text and by reversed text, so
//     each condition is a range found by binary search; only the narrower
//     range is compared with the compiled query. The usual dependency,
//     datasets.*_gold.weather__forecast_hourly, has a long literal suffix and
//     so a range of the few keys ending with it.
//
// A query whose literal prefix and suffix are both short (datasets.*) still
// compares every entry in the range; that range is then mostly matches.
type matchIndex struct {
	texts  []string
	exact  map[string][]int32
	byText []int32  // entry ids by text
	byRev  []int32  // entry ids by reversed text
	rev    []string // reversed text, by entry id
	globs  *strindex.Buckets[globEntry]
}

type globEntry struct {
	id int32
	g  *governance.Glob
}

func newMatchIndex(texts []string) *matchIndex {
	ix := &matchIndex{
		texts:  texts,
		exact:  make(map[string][]int32, len(texts)),
		byText: make([]int32, len(texts)),
		byRev:  make([]int32, len(texts)),
		rev:    make([]string, len(texts)),
	}
	var globs strindex.BucketsBuilder[globEntry]
	for i, t := range texts {
		id := int32(i)
		ix.exact[t] = append(ix.exact[t], id)
		ix.byText[i], ix.byRev[i] = id, id
		ix.rev[i] = reverse(t)
		if governance.HasMeta(t) {
			g := governance.CompileGlob(t)
			globs.Add(g.Prefix(), globEntry{id: id, g: g})
		}
	}
	slices.SortFunc(ix.byText, func(a, b int32) int { return strings.Compare(texts[a], texts[b]) })
	slices.SortFunc(ix.byRev, func(a, b int32) int { return strings.Compare(ix.rev[a], ix.rev[b]) })
	ix.globs = globs.Build(func([]globEntry) {})
	return ix
}

// lookup appends to dst[:0] the ids of the entries matching q (§5), in
// ascending order, each once.
func (ix *matchIndex) lookup(q string, dst []int32) []int32 {
	out := dst[:0]
	if !governance.HasMeta(q) {
		out = append(out, ix.exact[q]...)
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
// sharing its literal prefix or its literal suffix, whichever are fewer.
// Text that is not UTF-8 is compared byte by byte by the glob, so no
// literal part is assumed of it and every entry is a candidate.
func (ix *matchIndex) candidates(q string) []int32 {
	if !utf8.ValidString(q) {
		return ix.byText
	}
	byPrefix := prefixRange(ix.byText, ix.texts, governance.LiteralPrefix(q))
	bySuffix := prefixRange(ix.byRev, ix.rev, reverse(literalSuffix(q)))
	if len(bySuffix) < len(byPrefix) {
		return bySuffix
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

func reverse(s string) string {
	b := make([]byte, len(s))
	for i := range len(s) {
		b[len(s)-1-i] = s[i]
	}
	return string(b)
}
