package search

import (
	"cmp"
	"slices"
	"unique"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/owners"
)

// Index is one app's datasets — its sources keys, in sources order — as a
// search reads them.
//
// Each distinct word of the app is in vocab once, sorted, with the
// datasets whose own values hold it (postings: a dataset's position and the
// fields, packed in a uint32) and the fields of the app's defaults (and
// its name) that hold it. A dataset takes from the defaults what its
// served rule does (governance.MergeRules): the title, description and
// source system it does not state, the ownership when it lists none, the
// defaults' tags always (they are a union); inherit says which, per
// dataset. The defaults' words are so held once for the app, however many
// datasets share them.
type Index struct {
	vocab    []unique.Handle[string] // sorted by value
	start    []uint32                // vocab[i]'s postings are post[start[i]:start[i+1]]
	post     []uint32                // position<<8 | Field, by position within a word
	defaults []Field                 // vocab[i]'s fields in the defaults and the app's name
	inherit  []Field                 // by position: the fields the dataset takes from the defaults
}

// maxDatasets is how many datasets of one app an index can place: a
// posting holds a position in 24 bits. The check's budgets keep an app far
// below it; the datasets past it are not found.
const maxDatasets = 1 << 24

// NewIndex indexes the sources of cfg, the served configuration of app
// (ownership resolved, overlay merged), in sources order. reg gives the
// display name and aliases of each owner the rules name; nil indexes the
// names as written only. NewIndex asks reg about each owner id once.
func NewIndex(app string, cfg *governance.Config, reg owners.Lookup) *Index {
	b := builder{ids: map[string]int32{}, reg: reg, asked: map[string]*owners.Entry{}}
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
		if len(r.Ownership) > 0 {
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
// one entry per word, dataset and field it was found in.
type builder struct {
	ids      map[string]int32 // word → its place in words
	words    []string
	defaults []Field  // by word
	entries  []uint64 // word<<32 | position<<8 | field
	reg      owners.Lookup
	asked    map[string]*owners.Entry
}

// rule adds the fields of r that fields names, for the dataset at pos (-1:
// the defaults).
func (b *builder) rule(r *governance.Rule, pos int, fields Field) {
	if fields.Has(Title) && r.Title != nil {
		b.add(*r.Title, pos, Title)
	}
	if fields.Has(Description) && r.Description != nil {
		b.add(*r.Description, pos, Description)
	}
	if fields.Has(Source) && r.SourceSystem != nil {
		b.add(*r.SourceSystem, pos, Source)
	}
	if fields.Has(Tag) {
		for _, t := range r.Tags {
			b.add(t, pos, Tag)
		}
	}
	if fields.Has(Owner) {
		for _, o := range r.Ownership {
			b.add(o.Name, pos, Owner)
			if e := b.owner(o.Name); e != nil {
				if e.Name != nil {
					b.add(*e.Name, pos, Owner)
				}
				for _, a := range e.Aliases {
					b.add(a, pos, Owner)
				}
			}
		}
	}
}

// owner is the registry's entry for an ownership name, asked once.
func (b *builder) owner(name string) *owners.Entry {
	if b.reg == nil {
		return nil
	}
	e, ok := b.asked[name]
	if !ok {
		e = b.reg.ByID(name)
		b.asked[name] = e
	}
	return e
}

// add files every word of text under field, for the dataset at pos (-1:
// the defaults).
func (b *builder) add(text string, pos int, f Field) {
	eachWord(text, func(w string) {
		id, ok := b.ids[w]
		if !ok {
			id = int32(len(b.words))
			b.ids[w] = id
			b.words = append(b.words, w)
			b.defaults = append(b.defaults, 0)
		}
		if pos < 0 {
			b.defaults[id] |= f
			return
		}
		b.entries = append(b.entries, uint64(id)<<32|uint64(pos)<<8|uint64(f))
	})
}

// finish lays the words out sorted, each interned, with their postings: a
// dataset once per word, its fields joined.
func (b *builder) finish(ix *Index) {
	order := make([]int32, len(b.words)) // place in vocab → word id
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return cmp.Compare(b.words[x], b.words[y]) })
	rank := make([]uint64, len(order)) // word id → place in vocab
	ix.vocab = make([]unique.Handle[string], len(order))
	ix.defaults = make([]Field, len(order))
	for i, id := range order {
		rank[id] = uint64(i)
		ix.vocab[i] = unique.Make(b.words[id])
		ix.defaults[i] = b.defaults[id]
	}
	for i, e := range b.entries {
		b.entries[i] = rank[e>>32]<<32 | e&0xffffffff
	}
	slices.Sort(b.entries)
	ix.start = make([]uint32, len(order)+1)
	ix.post = make([]uint32, 0, len(b.entries))
	last := uint64(1<<64 - 1)
	for _, e := range b.entries {
		word, p := e>>32, uint32(e)
		if word<<32|uint64(p>>8) == last {
			ix.post[len(ix.post)-1] |= p & 0xff // the same dataset: join the fields
			continue
		}
		last = word<<32 | uint64(p>>8)
		ix.post = append(ix.post, p)
		ix.start[word+1] = uint32(len(ix.post))
	}
	// Words with no posting (the defaults' alone) start where the one
	// before them ends.
	for i := 1; i < len(ix.start); i++ {
		ix.start[i] = max(ix.start[i], ix.start[i-1])
	}
}

// Len is the number of datasets the index holds.
func (ix *Index) Len() int { return len(ix.inherit) }

// Words is the number of distinct words the index holds.
func (ix *Index) Words() int { return len(ix.vocab) }

// Bytes are the bytes the index holds of its own: its lists, not the
// interned words' bytes, which every index holding a word shares (Vocabulary
// sums those).
func (ix *Index) Bytes() int {
	const header = 24 // a slice
	return 5*header + 8*len(ix.vocab) + 4*len(ix.start) + 4*len(ix.post) + len(ix.defaults) + len(ix.inherit)
}

// EachWord calls fn with every distinct word the index holds, sorted.
func (ix *Index) EachWord(fn func(word string)) {
	for _, h := range ix.vocab {
		fn(h.Value())
	}
}
