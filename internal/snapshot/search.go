package snapshot

import (
	"sync"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/search"
)

// Query is what a person types to find datasets, in the search box of the
// page or GET /datasets?q=: a glob the whole key matches when it holds a
// glob metacharacter (*, ? or [), else words (search.ParseQuery) found in
// each dataset's key, title, description, tags, owners, app or source
// system.
type Query struct {
	text  string
	glob  *NameQuery    // a glob; nil for words
	words *search.Query // words; nil for a glob
}

// NewQuery reads text as a glob or as words; words it cannot read are a
// *search.QueryError or search.ErrNoWords.
func NewQuery(text string) (*Query, error) {
	if governance.HasMeta(text) {
		return &Query{text: text, glob: NewNameQuery(text)}, nil
	}
	w, err := search.ParseQuery(text)
	if err != nil {
		return nil, err
	}
	return &Query{text: text, words: w}, nil
}

// Text is the query as typed.
func (q *Query) Text() string { return q.text }

// Glob reports whether the query is a glob over whole keys rather than
// words.
func (q *Query) Glob() bool { return q.glob != nil }

// Words is the query's words; nil for a glob.
func (q *Query) Words() *search.Query { return q.words }

// Hit is a dataset a listing keeps, and how a search found it.
type Hit struct {
	Dataset *Dataset
	// Found is how the query's words matched it; zero outside a search
	// by words.
	Found search.Match
}

// found are the datasets a search by words found, in listing order, each
// packed in a uint64 (score<<40 | position in Snapshot.datasets<<8 |
// fields), and how many have each score. Packed and free of pointers,
// the hits of a search every key answers cost 8 bytes each and nothing to
// the collector; the buffers are kept for the next search.
type found struct {
	hits  []uint64
	count [search.MaxScore + 2]int32 // by score
}

var foundPool = sync.Pool{New: func() any { return new(found) }}

func (r *found) release() {
	if cap(r.hits) > 1<<20 {
		return // a rare huge answer is not kept for good
	}
	r.hits = r.hits[:0]
	clear(r.count[:])
	foundPool.Put(r)
}

// search finds the datasets f's words match that the rest of f keeps. It
// visits every app's index (an app whose index lacks a word is passed
// over on a binary search), in time that grows with the datasets of the
// apps holding every word; the owners the apps name are found by the
// words the served registry gives them, each read once a search. A key
// spelled exactly as the query scores above any other match.
func (s *Snapshot) search(f *Filter) *found {
	r := foundPool.Get().(*found)
	var scratch search.Scratch
	for i, a := range s.apps {
		if f.App != "" && a.Name != f.App {
			continue
		}
		start := uint64(s.appStart[i])
		a.search.Match(f.Query.words, a.Config, s.Owners, &scratch, func(pos int, m search.Match) {
			d := a.Dataset(pos)
			if !f.keep(d) {
				return
			}
			if d.ID() == f.Query.text {
				m.Score = search.MaxScore + 1
			}
			r.hits = append(r.hits, uint64(m.Score)<<40|(start+uint64(pos))<<8|uint64(m.Fields))
			r.count[m.Score]++
		})
	}
	return r
}

// window is the hits from the offset-th on in rank order (score, highest
// first, then listing order), at most limit of them: a counting pass over
// the scores, then one over the hits placing those that fall in the
// window, so a page of a large answer sorts nothing.
func (r *found) window(s *Snapshot, offset, limit int) []Hit {
	if offset >= len(r.hits) || limit <= 0 {
		return nil
	}
	end := min(len(r.hits), offset+limit)
	var first [search.MaxScore + 2]int32 // rank of each score's first hit
	rank := int32(0)
	for score := len(r.count) - 1; score >= 0; score-- {
		first[score] = rank
		rank += r.count[score]
	}
	out := make([]Hit, end-offset)
	for _, h := range r.hits {
		score := h >> 40
		at := int(first[score])
		first[score]++
		if at >= offset && at < end {
			out[at-offset] = Hit{Dataset: s.dataset(int32(uint32(h >> 8))), Found: search.Match{Fields: search.Field(h), Score: uint32(score)}}
		}
	}
	return out
}

// SearchBytes are the bytes the search indexes of the served apps hold.
func (s *Snapshot) SearchBytes() int {
	n := 0
	for _, a := range s.apps {
		n += a.search.Bytes()
	}
	return n
}
