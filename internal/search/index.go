package search

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"sync"

	"github.com/celine-eu/governanced/internal/governance"
)

// Index is one app's datasets — its sources keys, in sources order — as a
// search reads them.
//
// It holds nothing the owners registry says: a search reads the
// registry's display names and aliases of the owners the rules name when
// it runs (Match). An edit of the registry that leaves the names
// resolving as before leaves the index as it is, and the app with it.
//
// Each distinct word of the app is in words once, sorted, with the
// datasets whose own values hold it (its postings) and the fields of the
// app's defaults (and its name) that hold it. A word's postings are bytes:
// the fields the most of its datasets hold it in (its usual fields), then
// per dataset, in position order, a uvarint of the gap from the previous
// one's position (from -1) shifted left once, its low bit set when the
// fields are other than the usual ones and then follow in a byte. A dataset
// a word's next one is seldom more than 63 datasets on, so most postings
// are a byte. A dataset takes from the defaults what its served rule does
// (governance.MergeRules): the title, description and source system it
// does not state, the ownership when it lists none, the defaults' tags
// always (they are a union); inherit says which, per dataset. The
// defaults' words are so held once for the app, however many datasets
// share them.
type Index struct {
	words    string   // the distinct words, sorted, back to back
	at       []uint32 // word i is words[at[i]:at[i+1]]
	start    []uint32 // word i's postings are post[start[i]:start[i+1]]
	post     []byte   // by word: its usual fields, then a uvarint gap<<1 | other each dataset, [fields]
	defaults []Field  // word i's fields in the defaults and the app's name
	inherit  []Field  // by position: the fields the dataset takes from the defaults

	// owners are the ownership lists the datasets state, made when a
	// search first reads the registry's words for them (ownerLists).
	ownersOnce sync.Once
	owners     ownerLists
}

// ownerLists are the distinct ownership lists an index's datasets state
// (the lists are shared between the rules stating them, so most datasets
// of an app share a few), and which one each dataset states: a search
// reading the owners' words reads each list once, and the datasets' rules
// not at all.
type ownerLists struct {
	lists []*[]governance.Owner
	of    []uint32 // by position: 1 + the list it states in lists; 0 for none
}

// ownerLists are ix's ownership lists, made of cfg, the configuration ix
// was made of, when first asked for.
func (ix *Index) ownerLists(cfg *governance.Config) *ownerLists {
	ix.ownersOnce.Do(func() {
		n := len(ix.inherit)
		ol := ownerLists{of: make([]uint32, n)}
		at := map[*[]governance.Owner]uint32{}
		for d, src := range cfg.Sources[:n] {
			l := src.Rule.OwnershipList()
			if l == nil || len(*l) == 0 {
				continue
			}
			i, ok := at[l]
			if !ok {
				ol.lists = append(ol.lists, l)
				i = uint32(len(ol.lists))
				at[l] = i
			}
			ol.of[d] = i
		}
		ol.lists = slices.Clip(ol.lists)
		ix.owners = ol
	})
	return &ix.owners
}

// maxDatasets is how many datasets of one app an index can place: the
// builder holds a position in 24 bits. The check's budgets keep an app far
// below it; the datasets past it are not found.
const maxDatasets = 1 << 24

// fieldBits are the bits of the fields in the builder's entries, below
// the position; a posting holds its fields in a byte.
const fieldBits = 8

// NewIndex indexes the sources of cfg, the served configuration of app
// (ownership resolved, overlay merged), in sources order.
func NewIndex(app string, cfg *governance.Config) *Index {
	b := builders.Get().(*builder)
	defer b.release()
	d := cfg.Defaults
	b.add(app, -1, App)
	b.rule(d, -1, Title|Description|Source|Tag|Owner)
	n := min(len(cfg.Sources), maxDatasets)
	ix := &Index{inherit: make([]Field, n)}
	for i, src := range cfg.Sources[:n] {
		r := src.Rule
		own := Tag
		inherit := App | Tag
		for _, f := range []struct {
			field governance.Field
			f     Field
		}{{governance.FieldTitle, Title}, {governance.FieldDescription, Description}, {governance.FieldSourceSystem, Source}} {
			if r.Set.Has(f.field) {
				own |= f.f
			} else {
				inherit |= f.f
			}
		}
		if len(r.Ownership()) > 0 {
			own |= Owner
		} else {
			inherit |= Owner
		}
		ix.inherit[i] = inherit
		b.add(src.Key, i, Key)
		b.rule(r, i, own)
	}
	b.finish(ix)
	return ix
}

// builder collects an index's words: each distinct word once (ids), and
// one entry per word, dataset and field it was found in. Builders are
// kept between indexes (a build makes one per app), so that their lists
// and maps are allocated once per goroutine rather than once per app.
type builder struct {
	ids      map[string]int32 // word → its place in words
	words    []string
	defaults []Field  // by word
	entries  []uint64 // word<<32 | position<<8 | field, in position order
	buf      []byte   // the word being read, lower-cased
	post     []byte   // the postings being written
	count    [1 << fieldBits]uint32
	// finish's working lists.
	order, rank, at, placed []uint32
}

var builders = sync.Pool{New: func() any {
	return &builder{ids: map[string]int32{}}
}}

func (b *builder) release() {
	if len(b.entries) > 1<<20 {
		return // an app of a rare size: its lists are not kept
	}
	clear(b.ids)
	b.words, b.defaults, b.entries = b.words[:0], b.defaults[:0], b.entries[:0]
	builders.Put(b)
}

// rule adds the fields of r that fields names, for the dataset at pos (-1:
// the defaults).
func (b *builder) rule(r *governance.Rule, pos int, fields Field) {
	if t, ok := r.Title(); fields.Has(Title) && ok {
		b.add(t, pos, Title)
	}
	if d, ok := r.Description(); fields.Has(Description) && ok {
		b.add(d, pos, Description)
	}
	if s := r.SourceSystem(); fields.Has(Source) && s != nil {
		b.add(*s, pos, Source)
	}
	if fields.Has(Tag) {
		for _, t := range r.Tags() {
			b.add(t, pos, Tag)
		}
	}
	if fields.Has(Owner) {
		for _, o := range r.Ownership() {
			b.add(o.Name, pos, Owner)
		}
	}
}

// add files every word of text under field, for the dataset at pos (-1:
// the defaults).
func (b *builder) add(text string, pos int, f Field) {
	eachWord(text, &b.buf, func(w []byte) {
		id, ok := b.ids[string(w)]
		if !ok {
			word := string(w)
			id = int32(len(b.words))
			b.ids[word] = id
			b.words = append(b.words, word)
			b.defaults = append(b.defaults, 0)
		}
		if pos < 0 {
			b.defaults[id] |= f
			return
		}
		b.entries = append(b.entries, uint64(id)<<32|uint64(pos)<<fieldBits|uint64(f))
	})
}

// finish lays the words out sorted, back to back, with their postings: a
// dataset once per word, its fields joined. The entries are in position
// order already; placing them by word (a counting pass) keeps that order
// within each word, and a dataset's entries for one word side by side.
func (b *builder) finish(ix *Index) {
	n := len(b.words)
	b.order = grow(b.order, n) // place in words → word id
	for i := range b.order {
		b.order[i] = uint32(i)
	}
	slices.SortFunc(b.order, func(x, y uint32) int { return cmp.Compare(b.words[x], b.words[y]) })
	b.rank = grow(b.rank, n) // word id → place in words
	size := 0
	for _, w := range b.words {
		size += len(w)
	}
	var words strings.Builder
	words.Grow(size)
	ix.at = make([]uint32, n+1)
	ix.defaults = make([]Field, n)
	for i, id := range b.order {
		b.rank[id] = uint32(i)
		words.WriteString(b.words[id])
		ix.at[i+1] = uint32(words.Len())
		ix.defaults[i] = b.defaults[id]
	}
	ix.words = words.String()
	// Where each word's entries go, then each entry in its place.
	b.at = grow(b.at, n+1)
	clear(b.at)
	for _, e := range b.entries {
		b.at[b.rank[e>>32]+1]++
	}
	for i := 1; i < len(b.at); i++ {
		b.at[i] += b.at[i-1]
	}
	b.placed = grow(b.placed, len(b.entries))
	for _, e := range b.entries {
		w := b.rank[e>>32]
		b.placed[b.at[w]] = uint32(e)
		b.at[w]++
	}
	// b.at[w] is now where word w's entries end. A dataset's entries for
	// one word are side by side: join their fields, then write the word's
	// postings.
	ix.start = make([]uint32, n+1)
	b.post = b.post[:0]
	from := uint32(0)
	for w := range n {
		joined := b.placed[from:from] // written behind the reading
		for _, p := range b.placed[from:b.at[w]] {
			if m := len(joined); m > 0 && joined[m-1]>>fieldBits == p>>fieldBits {
				joined[m-1] |= p & (1<<fieldBits - 1)
				continue
			}
			joined = append(joined, p)
		}
		from = b.at[w]
		b.post = appendPostings(b.post, joined, &b.count)
		ix.start[w+1] = uint32(len(b.post))
	}
	ix.post = slices.Clone(b.post)
}

// appendPostings appends a word's postings, each a position<<fieldBits |
// fields in position order, as Index.post holds them. count is working
// memory, all zero, left so.
func appendPostings(dst []byte, joined []uint32, count *[1 << fieldBits]uint32) []byte {
	if len(joined) == 0 {
		return dst
	}
	usual := byte(joined[0])
	for _, p := range joined {
		f := byte(p)
		count[f]++
		if count[f] > count[usual] {
			usual = f
		}
	}
	dst = append(dst, usual)
	prev := -1
	for _, p := range joined {
		pos, f := int(p>>fieldBits), byte(p)
		count[f] = 0
		v := uint64(pos-prev) << 1
		if f != usual {
			v |= 1
		}
		dst = binary.AppendUvarint(dst, v)
		if f != usual {
			dst = append(dst, f)
		}
		prev = pos
	}
	return dst
}

// grow is s with length n, reallocated only when too short.
func grow(s []uint32, n int) []uint32 {
	if cap(s) < n {
		return make([]uint32, n)
	}
	return s[:n]
}

// Len is the number of datasets the index holds.
func (ix *Index) Len() int { return len(ix.inherit) }

// Words is the number of distinct words the index holds.
func (ix *Index) Words() int { return len(ix.defaults) }

// Bytes are the bytes the index holds: its words and its lists, not the
// ownership lists a search by an owner's words lists (ownerLists, about
// four bytes a dataset once made).
func (ix *Index) Bytes() int {
	const header = 24 // a slice
	return 16 + len(ix.words) + 5*header + 4*len(ix.at) + 4*len(ix.start) + len(ix.post) + len(ix.defaults) + len(ix.inherit)
}

// word is the index's i-th word.
func (ix *Index) word(i int) string { return ix.words[ix.at[i]:ix.at[i+1]] }

// EachWord calls fn with every distinct word the index holds, sorted.
func (ix *Index) EachWord(fn func(word string)) {
	for i := range ix.defaults {
		fn(ix.word(i))
	}
}
