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
	words   table   // the app's words: its keys', titles', descriptions', tags', owner names', app's and source systems'
	inherit []Field // by position: the fields the dataset takes from the defaults

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

// table is distinct texts, sorted, back to back, each with its postings:
// the datasets holding it and in which fields, and the fields of the
// app's defaults (and its name) that hold it.
type table struct {
	text     string   // the texts, sorted, back to back
	at       []uint32 // text i is text[at[i]:at[i+1]]
	start    []uint32 // text i's postings are post[start[i]:start[i+1]]
	post     []byte   // by text: its usual fields, then a uvarint gap<<1 | other each dataset, [fields]
	defaults []Field  // text i's fields in the defaults and the app's name
}

// get is the table's i-th text.
func (t *table) get(i int) string { return t.text[t.at[i]:t.at[i+1]] }

// postings are text i's postings.
func (t *table) postings(i int) []byte { return t.post[t.start[i]:t.start[i+1]] }

// len is the number of texts.
func (t *table) len() int { return len(t.defaults) }

func (t *table) bytes() int {
	const header = 24 // a slice
	return 16 + len(t.text) + 4*header + 4*len(t.at) + 4*len(t.start) + len(t.post) + len(t.defaults)
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
	words texts
	buf   []byte // the word being read, lower-cased
	post  []byte // the postings being written
	count [1 << fieldBits]uint32
	// finish's working lists.
	order, rank, at, placed []uint32
}

// texts are the distinct texts of a table being built, with where each
// was found.
type texts struct {
	ids      map[string]int32 // text → its place in list
	list     []string
	defaults []Field  // by text
	entries  []uint64 // text<<32 | position<<8 | field, in position order
}

// add files text under field for the dataset at pos (-1: the defaults).
func (t *texts) add(text []byte, pos int, f Field) {
	id, ok := t.ids[string(text)]
	if !ok {
		s := string(text)
		id = int32(len(t.list))
		t.ids[s] = id
		t.list = append(t.list, s)
		t.defaults = append(t.defaults, 0)
	}
	if pos < 0 {
		t.defaults[id] |= f
		return
	}
	t.entries = append(t.entries, uint64(id)<<32|uint64(pos)<<fieldBits|uint64(f))
}

func (t *texts) reset() {
	clear(t.ids)
	t.list, t.defaults, t.entries = t.list[:0], t.defaults[:0], t.entries[:0]
}

var builders = sync.Pool{New: func() any {
	return &builder{words: texts{ids: map[string]int32{}}}
}}

func (b *builder) release() {
	if len(b.words.entries) > 1<<20 {
		return // an app of a rare size: its lists are not kept
	}
	b.words.reset()
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
	eachWord(text, &b.buf, func(w []byte) { b.words.add(w, pos, f) })
}

// finish lays the words out (lay).
func (b *builder) finish(ix *Index) { ix.words = b.lay(&b.words) }

// lay lays t's texts out sorted, back to back, with their postings: a
// dataset once per text, its fields joined. The entries are in position
// order already; placing them by text (a counting pass) keeps that order
// within each text, and a dataset's entries for one text side by side.
func (b *builder) lay(t *texts) table {
	var out table
	n := len(t.list)
	b.order = grow(b.order, n) // place in the table → text id
	for i := range b.order {
		b.order[i] = uint32(i)
	}
	slices.SortFunc(b.order, func(x, y uint32) int { return cmp.Compare(t.list[x], t.list[y]) })
	b.rank = grow(b.rank, n) // text id → place in the table
	size := 0
	for _, w := range t.list {
		size += len(w)
	}
	var text strings.Builder
	text.Grow(size)
	out.at = make([]uint32, n+1)
	out.defaults = make([]Field, n)
	for i, id := range b.order {
		b.rank[id] = uint32(i)
		text.WriteString(t.list[id])
		out.at[i+1] = uint32(text.Len())
		out.defaults[i] = t.defaults[id]
	}
	out.text = text.String()
	// Where each text's entries go, then each entry in its place.
	b.at = grow(b.at, n+1)
	clear(b.at)
	for _, e := range t.entries {
		b.at[b.rank[e>>32]+1]++
	}
	for i := 1; i < len(b.at); i++ {
		b.at[i] += b.at[i-1]
	}
	b.placed = grow(b.placed, len(t.entries))
	for _, e := range t.entries {
		w := b.rank[e>>32]
		b.placed[b.at[w]] = uint32(e)
		b.at[w]++
	}
	// b.at[w] is now where text w's entries end. A dataset's entries for
	// one text are side by side: join their fields, then write the
	// text's postings.
	out.start = make([]uint32, n+1)
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
		out.start[w+1] = uint32(len(b.post))
	}
	out.post = slices.Clone(b.post)
	return out
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
func (ix *Index) Words() int { return ix.words.len() }

// Bytes are the bytes the index holds: its words and its lists.
func (ix *Index) Bytes() int {
	const header = 24 // a slice
	return ix.words.bytes() + header + len(ix.inherit)
}

// word is the index's i-th word.
func (ix *Index) word(i int) string { return ix.words.get(i) }

// EachWord calls fn with every distinct word the index holds, sorted.
func (ix *Index) EachWord(fn func(word string)) {
	for i := range ix.words.len() {
		fn(ix.word(i))
	}
}
