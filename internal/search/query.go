package search

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/celine-eu/governanced/internal/uvarint"
)

// The bounds of a query: what a person types into a search box fits well
// within them, and a request cannot make a search visit every app's words
// hundreds of times.
const (
	MaxQueryBytes = 512
	MaxQueryWords = 16
)

// Errors of ParseQuery.
var (
	ErrNoWords = errors.New("the search holds no letter or digit")
)

// QueryError is a query ParseQuery refuses, saying why.
type QueryError struct{ Msg string }

func (e *QueryError) Error() string { return e.Msg }

// Query is a search: its words, each to be found at the start of a word of
// some field of a dataset.
type Query struct {
	text  string
	words []string // distinct, in the order given
}

// ParseQuery reads what a person typed. It fails on text longer than
// MaxQueryBytes or that is not UTF-8, with more than MaxQueryWords words,
// or with none (ErrNoWords).
func ParseQuery(s string) (*Query, error) {
	if len(s) > MaxQueryBytes {
		return nil, &QueryError{fmt.Sprintf("the search is %d bytes long; at most %d are read", len(s), MaxQueryBytes)}
	}
	if !utf8.ValidString(s) {
		return nil, &QueryError{"the search is not UTF-8 text"}
	}
	q := &Query{text: s}
	var buf []byte
	eachWord(s, &buf, func(w []byte) {
		if !slices.Contains(q.words, string(w)) {
			q.words = append(q.words, string(w))
		}
	})
	switch {
	case len(q.words) == 0:
		return nil, ErrNoWords
	case len(q.words) > MaxQueryWords:
		return nil, &QueryError{fmt.Sprintf("the search has %d different words; at most %d are matched", len(q.words), MaxQueryWords)}
	}
	return q, nil
}

// Text is the query as given.
func (q *Query) Text() string { return q.text }

// Words are the query's distinct words, lower-cased, in the order given.
func (q *Query) Words() []string { return q.words }

// Scratch is the working memory of matching, kept between the indexes of
// one search so that visiting many apps allocates once.
type Scratch struct {
	hit, exact, fields []Field
	score              []uint32
	miss               []bool // a word missed the dataset
	ranges             [][2]int
}

func (s *Scratch) reset(n int) {
	if cap(s.hit) < n {
		s.hit, s.exact, s.fields = make([]Field, n), make([]Field, n), make([]Field, n)
		s.score, s.miss = make([]uint32, n), make([]bool, n)
	}
	s.hit, s.exact, s.fields = s.hit[:n], s.exact[:n], s.fields[:n]
	s.score, s.miss = s.score[:n], s.miss[:n]
	clear(s.fields)
	clear(s.score)
	clear(s.miss)
}

// Match is how a dataset matched a query.
type Match struct {
	// Fields are every field a word of the query was found in.
	Fields Field
	// Score ranks the match: first by how many of the query's words
	// the key or title holds, then by the fields' weights.
	Score uint32
}

// rankStep puts a word found in the key or the title above any sum of
// weights: MaxQueryWords words at twice the highest weight stay below it.
const rankStep = 2*8*MaxQueryWords + 1

// MaxScore bounds Match.Score.
const MaxScore = MaxQueryWords*rankStep + rankStep - 1

// Match calls fn for each dataset of ix that every word of q is found in,
// by position, with how it matched. s may be nil.
func (ix *Index) Match(q *Query, s *Scratch, fn func(pos int, m Match)) {
	n := len(ix.inherit)
	if n == 0 {
		return
	}
	// A word the app does not hold at all misses every dataset: most apps
	// are passed over on a binary search per word.
	if s == nil {
		s = &Scratch{}
	}
	s.ranges = s.ranges[:0]
	for _, w := range q.words {
		lo, hi := ix.prefixRange(w)
		if lo == hi {
			return
		}
		s.ranges = append(s.ranges, [2]int{lo, hi})
	}
	ranges := s.ranges
	s.reset(n)
	for k, w := range q.words {
		clear(s.hit)
		clear(s.exact)
		var fromDefaults, exactDefaults Field
		for i := ranges[k][0]; i < ranges[k][1]; i++ {
			// Sorted, the word itself comes first among the words it
			// begins.
			whole := i == ranges[k][0] && ix.word(i) == w
			fromDefaults |= ix.defaults[i]
			if whole {
				exactDefaults = ix.defaults[i]
			}
			scatter(ix.post[ix.start[i]:ix.start[i+1]], s, whole)
		}
		for d := range n {
			if s.miss[d] {
				continue
			}
			hit := s.hit[d] | fromDefaults&ix.inherit[d]
			if hit == 0 {
				s.miss[d] = true
				continue
			}
			exact := s.exact[d] | exactDefaults&ix.inherit[d]
			s.fields[d] |= hit
			s.score[d] += max(weight(hit), 2*weight(exact))
			if hit&(Key|Title) != 0 {
				s.score[d] += rankStep
			}
		}
	}
	for d := range n {
		if !s.miss[d] {
			fn(d, Match{Fields: s.fields[d], Score: s.score[d]})
		}
	}
}

// scatter marks in s.hit (and, for the whole word, s.exact) the fields of
// each of a word's postings (Index.post).
func scatter(post []byte, s *Scratch, whole bool) {
	if len(post) == 0 {
		return
	}
	usual := Field(post[0])
	pos := -1
	for i := 1; i < len(post); {
		v, w := uvarint.Decode(post[i:])
		i += w
		pos += int(v >> 1)
		f := usual
		if v&1 != 0 {
			f = Field(post[i])
			i++
		}
		s.hit[pos] |= f
		if whole {
			s.exact[pos] |= f
		}
	}
}

// prefixRange is the range of the index's words that begin with w.
func (ix *Index) prefixRange(w string) (lo, hi int) {
	n := len(ix.defaults)
	lo, hi = 0, n // the first word not below w is in [lo, hi]
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if ix.word(mid) < w {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	hi = lo
	for hi < n && strings.HasPrefix(ix.word(hi), w) {
		hi++
	}
	return lo, hi
}

// Span is a run of a text a page shows, marked when a query's word begins
// it.
type Span struct {
	Text string
	Mark bool
}

// Spans cuts text into runs, marking every word a word of q begins: what
// a results page highlights to say why a dataset matched. The runs put
// together are text.
func (q *Query) Spans(text string) []Span {
	var out []Span
	var buf []byte
	plain := 0 // start of the unmarked run
	for i := 0; ; {
		start, end := nextWord(text, i)
		if start == len(text) {
			break
		}
		i = end
		buf = appendLower(buf[:0], text[start:end])
		if !slices.ContainsFunc(q.words, func(w string) bool { return strings.HasPrefix(string(buf), w) }) {
			continue
		}
		if start > plain {
			out = append(out, Span{Text: text[plain:start]})
		}
		out = append(out, Span{Text: text[start:end], Mark: true})
		plain = end
	}
	if plain < len(text) {
		out = append(out, Span{Text: text[plain:]})
	}
	return out
}
