package graph

import (
	"runtime"
	"slices"
	"sync"

	"github.com/celine-eu/governanced/internal/keyindex"
)

// lookup appends to dst[:0] the entries of ix that match q (§5: either,
// read as a Python fnmatchcase pattern, matches the whole of the other read
// as text; two globs therefore match only when one, as plain text, matches
// the other), in
// ascending order, each once: the entries q matches as a glob (or equals),
// and the glob entries that match q.
func lookup(ix *keyindex.Index, q string, dst []int32) []int32 {
	return lookupGlob(ix, q, nil, dst)
}

// lookupGlob is lookup for q compiled as g (nil: q has no metacharacter).
func lookupGlob(ix *keyindex.Index, q string, g *keyindex.Glob, dst []int32) []int32 {
	var out []int32
	switch {
	case g != nil:
		out = ix.AppendMatches(dst[:0], g)
	case keyindex.HasMeta(q):
		out = ix.AppendTexts(dst[:0], q)
	default:
		out = ix.AppendEqual(dst[:0], q)
	}
	out = ix.AppendPatterns(out, q)
	slices.Sort(out)
	return slices.Compact(out)
}

// The matching of dependencies to keys (§6 step 2.1) goes from the keys to
// an index of the dependencies: the patterns are few (a pipeline declares
// a handful) and the keys many, so every key is looked up in an index of
// every pattern (keyindex: the patterns that match it, the patterns it
// matches as a glob), and no key is compared with a pattern that shares
// none of its anchors. A tree's keys are spread over workers by pipeline.

// keyHit is a key a dependency matched, both by their ids.
type keyHit struct{ dep, key int32 }

// matchKeys looks up the keys of pipelines[from:to] in deps, keeping the
// dependencies keep accepts (nil: all), and appends the hits in key order.
func (g *Graph) matchKeys(deps *keyindex.Index, from, to int, keep func(dep int32) bool, dst []keyHit) []keyHit {
	var ids []int32
	for p := from; p < to; p++ {
		pl := &g.Pipelines[p]
		for k := range pl.KeyCount() {
			var glob *keyindex.Glob
			if kg, ok := pl.glob(k); ok {
				glob = &kg
			}
			ids = lookupGlob(deps, pl.Key(k), glob, ids)
			for _, d := range ids {
				if keep == nil || keep(d) {
					dst = append(dst, keyHit{dep: d, key: g.keyStart[p] + int32(k)})
				}
			}
		}
	}
	return dst
}

// matchAll is matchKeys over every pipeline on up to workers goroutines,
// the hits in key order.
func (g *Graph) matchAll(deps *keyindex.Index, keep func(dep int32) bool, workers int) []keyHit {
	n := len(g.Pipelines)
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// Chunks of about equal key counts, several per worker, taken in turn.
	chunks := []int{0}
	per := max(1, int(g.keyStart[n])/(workers*8))
	for p := 1; p <= n; p++ {
		if p == n || int(g.keyStart[p]-g.keyStart[chunks[len(chunks)-1]]) >= per {
			chunks = append(chunks, p)
		}
	}
	if n == 0 {
		return nil
	}
	results := make([][]keyHit, len(chunks)-1)
	var next sync.Mutex
	todo := 0
	var wg sync.WaitGroup
	for range min(workers, len(results)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				c := todo
				todo++
				next.Unlock()
				if c >= len(results) {
					return
				}
				results[c] = g.matchKeys(deps, chunks[c], chunks[c+1], keep, nil)
			}
		}()
	}
	wg.Wait()
	return slices.Concat(results...)
}

// byDep groups hits, in key order, by dependency: hits[start[d]:start[d+1]]
// are dependency d's keys.
func byDep(hits []keyHit, deps int) (keys, start []int32) {
	start = make([]int32, deps+1)
	for _, h := range hits {
		start[h.dep+1]++
	}
	for d := range deps {
		start[d+1] += start[d]
	}
	keys = make([]int32, len(hits))
	fill := slices.Clone(start[:deps])
	for _, h := range hits {
		keys[fill[h.dep]] = h.key
		fill[h.dep]++
	}
	return keys, start
}
