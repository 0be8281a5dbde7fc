package keyindex

import (
	"slices"
	"sort"
)

// JoinAfter is Join(parts) with its globs filed, for an index that
// replaces prev, Join(prevParts) (whose globs it files if they are not
// yet). A reload joins the apps' indexes again when one app changed;
// filing every glob of the tree again under the tree's anchors would cost
// in proportion to the tree. So the globs of the parts prev and parts
// share (the same *Index) keep the anchors prev filed them under, moved to
// their new positions, and only the other parts' globs are filed: each
// under the anchor of its own that has the smallest bucket among prev's
// anchors. prev's anchor sets are shared, not copied.
//
// A glob none of whose anchors prev has (a new shape of key), parts that
// repeat an index or keep prev's in another order, and more than a
// quarter of the globs filed so since the last filing of all (and more
// than maxRefiled) make it file every glob afresh, as Join and
// FileGlobs do; so does a nil prev, or one without globs. The answers are Join's
// either way: a glob may be filed under any anchor it holds, and a lookup
// opens every bucket whose anchor the name holds.
func JoinAfter(prev *Index, prevParts, parts []*Index) *Index {
	ix := Join(parts)
	var pi *patternIndex
	if prev != nil && len(prev.globAt) > 0 && len(ix.globAt) > 0 {
		pi = refile(prev, prevParts, parts, ix)
	}
	if pi == nil {
		pi = ix.fileGlobs()
	}
	ix.patternsOnce.Do(func() { ix.patterns = pi })
	return ix
}

// maxRefiled is how many globs JoinAfter files into an earlier filing,
// beyond a quarter of the index's globs, before it files every glob
// afresh.
const maxRefiled = 64

// partSpan is where a part's entries and globs start in a joined index.
type partSpan struct {
	entry, glob int32
}

// spans are the starts of parts' entries and globs in their join, and one
// past the last.
func spans(parts []*Index) []partSpan {
	out := make([]partSpan, len(parts)+1)
	for k, p := range parts {
		out[k+1] = partSpan{entry: out[k].entry + int32(p.Len()), glob: out[k].glob + int32(len(p.globAt))}
	}
	return out
}

// refile is the filing of ix, Join(parts), made from the filing of prev,
// Join(prevParts); nil when JoinAfter must file every glob afresh, or when
// prev is not a join of prevParts' size.
func refile(prev *Index, prevParts, parts []*Index, ix *Index) *patternIndex {
	oldSpans, newSpans := spans(prevParts), spans(parts)
	if end := oldSpans[len(prevParts)]; int(end.entry) != prev.Len() || int(end.glob) != len(prev.globAt) {
		return nil
	}
	m, ok := newMoves(prevParts, parts, oldSpans, newSpans)
	if !ok {
		return nil
	}
	old := prev.patternSide()
	adds, floating, ok := fileAdded(old, parts, m.kept, newSpans, ix)
	if !ok {
		return nil
	}
	// The globs filed so choose among the anchors the earlier filing has,
	// by its buckets' sizes: once many have been, every glob is filed
	// afresh, which also lets go of the anchors no glob holds any more.
	refiled := old.refiled + len(adds) + len(floating)
	if refiled > maxRefiled && refiled > len(ix.globAt)/4 {
		return nil
	}
	pi := &patternIndex{refiled: refiled}
	for kind := range old.by {
		if old.by[kind].set != nil {
			pi.by[kind], adds = m.rebucket(&old.by[kind], anchorKind(kind), adds)
		}
	}
	for _, e := range old.floating {
		if e, ok := m.move(e); ok {
			pi.floating = append(pi.floating, e)
		}
	}
	if len(floating) > 0 {
		pi.floating = append(pi.floating, floating...)
		slices.SortStableFunc(pi.floating, longerFirst)
	}
	return pi
}

// moves says where each of an earlier join's parts went in a new one.
type moves struct {
	oldSpans, newSpans []partSpan
	// to[k] is where prevParts[k] went in parts; -1 when it is gone.
	to []int
	// kept[j]: parts[j] is one of prevParts.
	kept []bool
}

// newMoves matches parts with prevParts; ok is false when a part repeats
// or the parts kept are in another order: the kept parts' entries must
// keep their order in every bucket.
func newMoves(prevParts, parts []*Index, oldSpans, newSpans []partSpan) (m moves, ok bool) {
	at := make(map[*Index]int, len(parts))
	for k, p := range parts {
		if _, dup := at[p]; dup {
			return m, false
		}
		at[p] = k
	}
	m = moves{oldSpans: oldSpans, newSpans: newSpans, to: make([]int, len(prevParts)), kept: make([]bool, len(parts))}
	last := -1
	for k, p := range prevParts {
		m.to[k] = -1
		if j, ok := at[p]; ok && !m.kept[j] {
			if j < last {
				return m, false
			}
			m.to[k], m.kept[j], last = j, true, j
		}
	}
	return m, true
}

// move is e, an entry of the earlier join, at its place in the new one;
// ok is false when its part is gone.
func (m *moves) move(e globEntry) (globEntry, bool) {
	n := len(m.to)
	k := sort.Search(n, func(k int) bool { return m.oldSpans[k+1].entry > e.id })
	if k == n || m.to[k] < 0 {
		return e, false
	}
	from, to := m.oldSpans[k], m.newSpans[m.to[k]]
	e.id += to.entry - from.entry
	e.glob += to.glob - from.glob
	return e, true
}

// fileAdded files the globs of the parts not kept, each under the anchor
// of its own with the smallest bucket in old; the globs with no anchor
// float. adds come sorted by kind and bucket. ok is false when a glob
// has no anchor old's sets hold.
func fileAdded(old *patternIndex, parts []*Index, kept []bool, newSpans []partSpan, ix *Index) (adds []filedGlob, floating []globEntry, ok bool) {
	var scratch []anchor
	for j, p := range parts {
		if kept[j] {
			continue
		}
		for g := range p.globAt {
			glob, e := ix.entry(int(newSpans[j].glob) + g)
			scratch = uniqueAnchors(glob.anchors(scratch[:0]), 0)
			if len(scratch) == 0 {
				floating = append(floating, e)
				continue
			}
			best, bestSize := -1, 0
			var bestKind anchorKind
			for _, a := range scratch {
				b := &old.by[a.kind]
				if b.set == nil {
					continue
				}
				pos := b.set.Lookup(a.text)
				if pos < 0 {
					continue
				}
				if size := len(b.bucket(pos)); best < 0 || size < bestSize {
					best, bestSize, bestKind = pos, size, a.kind
				}
			}
			if best < 0 {
				return nil, nil, false // an anchor prev's sets do not have
			}
			adds = append(adds, fileUnder(bestKind, int32(best), glob, e))
		}
	}
	slices.SortFunc(adds, func(a, b filedGlob) int {
		if a.kind != b.kind {
			return int(a.kind) - int(b.kind)
		}
		return int(a.bucket - b.bucket)
	})
	return adds, floating, true
}

// rebucket is ob, the earlier join's buckets of kind, for the new join:
// each bucket's kept entries, moved, then the entries of adds filed in
// it, which it returns without them. The moves keep the kept entries'
// order (parts keep theirs), and a bucket that gained entries is sorted
// again.
func (m *moves) rebucket(ob *buckets, kind anchorKind, adds []filedGlob) (buckets, []filedGlob) {
	nb := buckets{set: ob.set, start: make([]int32, len(ob.start))}
	entries := make([]globEntry, 0, len(ob.entries)+len(adds))
	for b := range len(ob.start) - 1 {
		nb.start[b] = int32(len(entries))
		for _, e := range ob.bucket(b) {
			if e, ok := m.move(e); ok {
				entries = append(entries, e)
			}
		}
		gained := false
		for len(adds) > 0 && adds[0].kind == kind && int(adds[0].bucket) == b {
			entries, adds, gained = append(entries, adds[0].e), adds[1:], true
		}
		if gained {
			slices.SortFunc(entries[nb.start[b]:], longerFirst)
		}
	}
	nb.start[len(ob.start)-1] = int32(len(entries))
	nb.entries = slices.Clip(entries)
	return nb, adds
}
