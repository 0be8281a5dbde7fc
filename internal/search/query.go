package search

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/owners"
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

// Registry is what a search reads of the owners registry: each owner's
// display name and aliases. *owners.Registry is one.
type Registry interface {
	ByID(id string) *owners.Entry
	All() []*owners.Entry
}

// Scratch is the working memory of matching, kept between the indexes of
// one search so that visiting many apps allocates once and reads the
// registry once.
type Scratch struct {
	hit, exact, fields []Field
	score              []uint32
	miss               []bool // a word missed the dataset
	ranges             [][2]int
	listOwned          []ownerWords // by list of the index's ownerLists
	// What the registry says of the owners the search met, for the query
	// and registry it was asked for (ownerWords).
	query    *Query
	reg      Registry
	anyOwner uint16 // the query's words that begin a word some owner holds
	// hitBy are, by word of the query, the owners whose words it begins,
	// up to maxHitBy of them; many, the words more owners hold.
	hitBy [MaxQueryWords][]*owners.Entry
	many  uint16
	byID  map[string]ownerWords
	buf   []byte
}

// ownerWords is which of a query's words begin (hit) and equal (exact) a
// word of an owner's display name or aliases, bit k for word k.
type ownerWords struct{ hit, exact uint16 }

// readRegistry prepares s for q's words against reg: which of them begin
// a word some owner holds, and empty tables for the owners met.
func (s *Scratch) readRegistry(q *Query, reg Registry) {
	if s.query == q && s.reg == reg {
		return
	}
	s.query, s.reg = q, reg
	clear(s.byID)
	s.anyOwner, s.many = 0, 0
	for k := range s.hitBy {
		s.hitBy[k] = s.hitBy[k][:0]
	}
	if reg != nil {
		for _, e := range reg.All() {
			m := s.entryWords(q, e)
			s.anyOwner |= m.hit
			for k := range q.words {
				switch bit := uint16(1) << k; {
				case m.hit&bit == 0:
				case len(s.hitBy[k]) < maxHitBy:
					s.hitBy[k] = append(s.hitBy[k], e)
				default:
					s.many |= bit
				}
			}
		}
	}
}

// maxHitBy is how many owners holding a word of the query a search
// lists: a word naming a few owners (a name, a number) passes over every
// app that names none of them without reading its owners' lists; a word
// most owners hold (the "Organisation" every display name ends with)
// reads them.
const maxHitBy = 16

// mayHoldOwners reports whether an owner ix's datasets name may hold
// word k of the query s was prepared for: false when no owner holding it
// is named by the index, as the words of the names it holds say.
func (s *Scratch) mayHoldOwners(ix *Index, k int) bool {
	bit := uint16(1) << k
	switch {
	case s.anyOwner&bit == 0:
		return false
	case s.many&bit != 0:
		return true
	}
	for _, e := range s.hitBy[k] {
		// A dataset names the owner by its id or, when the name did not
		// resolve to it, by an alias: every word of the name is then one
		// of the index's words.
		if s.holdsWordsOf(ix, e.ID) || slices.ContainsFunc(e.Aliases, func(a string) bool { return s.holdsWordsOf(ix, a) }) {
			return true
		}
	}
	return false
}

// holdsWordsOf reports whether every word of text is a word of ix.
func (s *Scratch) holdsWordsOf(ix *Index, text string) bool {
	holds := true
	eachWord(text, &s.buf, func(w []byte) {
		if holds {
			lo, hi := ix.prefixRange(string(w))
			holds = lo < hi && ix.word(lo) == string(w)
		}
	})
	return holds
}

// entryWords is what the registry entry e says for q's words.
func (s *Scratch) entryWords(q *Query, e *owners.Entry) ownerWords {
	var m ownerWords
	add := func(text string) {
		eachWord(text, &s.buf, func(w []byte) {
			for k, qw := range q.words {
				if strings.HasPrefix(string(w), qw) {
					m.hit |= 1 << k
					if len(w) == len(qw) {
						m.exact |= 1 << k
					}
				}
			}
		})
	}
	if e.Name != nil {
		add(*e.Name)
	}
	for _, a := range e.Aliases {
		add(a)
	}
	return m
}

// listWords is what the registry says of the owners of list, for the
// query s was prepared for; each owner is read once a search.
func (s *Scratch) listWords(list []governance.Owner) ownerWords {
	var m ownerWords
	for _, o := range list {
		w, ok := s.byID[o.Name]
		if !ok {
			if e := s.reg.ByID(o.Name); e != nil {
				w = s.entryWords(s.query, e)
			}
			if s.byID == nil {
				s.byID = map[string]ownerWords{}
			}
			s.byID[o.Name] = w
		}
		m.hit |= w.hit
		m.exact |= w.exact
	}
	return m
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
// by position, with how it matched. cfg is the configuration ix was made
// of (NewIndex): an owner its rules name is also found by the words of its
// display name and aliases in reg (nil: by its name alone). s may be nil.
func (ix *Index) Match(q *Query, cfg *governance.Config, reg Registry, s *Scratch, fn func(pos int, m Match)) {
	n := len(ix.inherit)
	if n == 0 {
		return
	}
	if s == nil {
		s = &Scratch{}
	}
	s.readRegistry(q, reg)
	if !s.wordRanges(ix, q) {
		return
	}
	o := s.readOwned(ix, cfg)
	// A word neither the app nor its owners hold misses every dataset.
	for k, r := range s.ranges {
		if r[0] == r[1] && o.words&(1<<k) == 0 {
			return
		}
	}
	s.reset(n)
	for k, w := range q.words {
		fromDefaults, exactDefaults := s.markWord(ix, w, s.ranges[k])
		if bit := uint16(1) << k; o.words&bit != 0 {
			f, e := s.markOwners(o, bit)
			fromDefaults, exactDefaults = fromDefaults|f, exactDefaults|e
		}
		s.scoreWord(ix, fromDefaults, exactDefaults)
	}
	for d := range n {
		if !s.miss[d] {
			fn(d, Match{Fields: s.fields[d], Score: s.score[d]})
		}
	}
}

// wordRanges sets s.ranges to the range of ix's words each word of q
// begins; false when a word neither the app nor the owners it may name
// hold misses every dataset: most apps are passed over on a binary
// search per word.
func (s *Scratch) wordRanges(ix *Index, q *Query) bool {
	s.ranges = s.ranges[:0]
	for k, w := range q.words {
		lo, hi := ix.prefixRange(w)
		if lo == hi && !s.mayHoldOwners(ix, k) {
			return false
		}
		s.ranges = append(s.ranges, [2]int{lo, hi})
	}
	return true
}

// owned is what the registry says of the owners an app's datasets state
// (none inherited: the defaults' owners reach a dataset through inherit)
// and of the defaults', when a word of the query begins a word some owner
// of the registry holds.
type owned struct {
	lists    *ownerLists // nil when no word begins an owner's
	defaults ownerWords
	words    uint16 // the words of the query the app's owners hold
}

// readOwned reads what the registry says of the owners ix's datasets
// state and of cfg's defaults (owned).
func (s *Scratch) readOwned(ix *Index, cfg *governance.Config) owned {
	var o owned
	if s.anyOwner == 0 {
		return o
	}
	o.lists = ix.ownerLists(cfg)
	s.listOwned = slices.Grow(s.listOwned[:0], len(o.lists.lists))[:len(o.lists.lists)]
	for i, l := range o.lists.lists {
		s.listOwned[i] = s.listWords(*l)
		o.words |= s.listOwned[i].hit
	}
	if cfg.Defaults != nil {
		o.defaults = s.listWords(cfg.Defaults.Ownership())
		o.words |= o.defaults.hit
	}
	return o
}

// markWord sets s.hit and s.exact to the fields each dataset holds w in,
// from ix's words in r, the range of those w begins, and says which
// fields the defaults hold it in.
func (s *Scratch) markWord(ix *Index, w string, r [2]int) (fromDefaults, exactDefaults Field) {
	clear(s.hit)
	clear(s.exact)
	for i := r[0]; i < r[1]; i++ {
		// Sorted, the word itself comes first among the words it
		// begins.
		whole := i == r[0] && ix.word(i) == w
		fromDefaults |= ix.defaults[i]
		if whole {
			exactDefaults |= ix.defaults[i]
		}
		scatter(ix.post[ix.start[i]:ix.start[i+1]], s, whole)
	}
	return fromDefaults, exactDefaults
}

// markOwners adds Owner to s.hit (and s.exact) of each dataset whose
// stated owners hold the word bit, and says whether the defaults' do.
func (s *Scratch) markOwners(o owned, bit uint16) (fromDefaults, exactDefaults Field) {
	for d, l := range o.lists.of {
		if l == 0 {
			continue
		}
		if w := s.listOwned[l-1]; w.hit&bit != 0 {
			s.hit[d] |= Owner
			if w.exact&bit != 0 {
				s.exact[d] |= Owner
			}
		}
	}
	if o.defaults.hit&bit != 0 {
		fromDefaults |= Owner
		if o.defaults.exact&bit != 0 {
			exactDefaults |= Owner
		}
	}
	return fromDefaults, exactDefaults
}

// scoreWord adds a word's marks (markWord, markOwners) to each dataset's
// fields and score, and marks the datasets that do not hold it missed.
func (s *Scratch) scoreWord(ix *Index, fromDefaults, exactDefaults Field) {
	for d := range s.miss {
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
