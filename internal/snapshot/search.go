package snapshot

import (
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

// search is every dataset the words of f's query find that the rest of f
// keeps, best first: by score, a key spelled exactly as the query first,
// then in listing order. It visits every app's index (an app whose index
// lacks a word is passed over on a binary search), in time that grows with
// the datasets of the apps holding every word.
func (s *Snapshot) search(f *Filter) []Hit {
	q := f.Query.words
	var scratch search.Scratch
	var hits []Hit
	for _, a := range s.apps {
		if f.App != "" && a.Name != f.App {
			continue
		}
		a.search.Match(q, &scratch, func(pos int, m search.Match) {
			d := a.Datasets[pos]
			if !f.keep(d) {
				return
			}
			if d.ID == f.Query.text {
				m.Score = search.MaxScore + 1
			}
			hits = append(hits, Hit{Dataset: d, Found: m})
		})
	}
	return rank(hits)
}

// rank orders hits by score, highest first, keeping their order among
// equal scores: a counting sort, since scores are small.
func rank(hits []Hit) []Hit {
	if len(hits) < 2 {
		return hits
	}
	var count [search.MaxScore + 3]int32
	for _, h := range hits {
		count[search.MaxScore+1-h.Found.Score+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	out := make([]Hit, len(hits))
	for _, h := range hits {
		k := search.MaxScore + 1 - h.Found.Score
		out[count[k]] = h
		count[k]++
	}
	return out
}

// SearchBytes are the bytes the search indexes of the served apps hold:
// their lists, and once each the bytes of the distinct words they share.
func (s *Snapshot) SearchBytes() (lists, words int) {
	seen := map[string]bool{}
	for _, a := range s.apps {
		lists += a.search.Bytes()
		a.search.EachWord(func(w string) {
			if !seen[w] {
				seen[w] = true
				words += len(w)
			}
		})
	}
	return lists, words
}
