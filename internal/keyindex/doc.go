// Package keyindex is the one index of dataset keys and globs: the sources
// keys of an app (per-app resolution), of a whole tree (the tree-wide
// resolution behind GET /datasets/{id}/rule) and the depends_on entries of
// a tree (the dependency graph) are each an Index.
//
// An Index answers both questions graph.md §5 asks, either side being the
// glob: which of its entries, read as globs, match a name (AppendPatterns),
// and which of its entries a glob matches, read as text (AppendTexts). It
// answers in time that grows with the answer, not with the number of
// entries, for the patterns keys and dependencies are written with: a *, ?
// or [...] leading, trailing or inside any dot-separated part.
//
// Both directions rest on anchors (anchor.go): literal text every name a
// glob matches holds at a known place — the start of the name, or the
// start or end of one of its dot-separated parts. A glob is filed under the
// anchor fewest other globs share, and a name opens only the buckets of the
// anchors it holds, each probe costing about a hash; a pattern looks its
// most selective anchor up among the entries' parts, sorted, and compares
// only the entries found there. Every candidate is confirmed with the
// compiled glob (Glob: Python's fnmatchcase, exactly), so an anchor never
// changes an answer, only how many entries are compared. docs/adr/0012
// records the choice and its figures.
package keyindex
