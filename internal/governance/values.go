package governance

import (
	"encoding/binary"
	"sync"

	"github.com/celine-eu/governanced/internal/yaml11"
)

// values holds one copy of each value a document states more than once,
// while it is parsed: a licence, a level, an owner list, a tag list, a
// dataspace block written for a hundred datasets is one string, one list,
// one block in the rules that state it. The YAML reader gives every
// occurrence its own string; a large tree's rules would otherwise hold
// each repeated value once per dataset, most of their memory.
//
// A document parsed with a *Values (Values.ParseDocument) also shares
// with every other document parsed with it: the apps of one tree write
// the same licences, owners and tag lists, and a thousand small apps
// would otherwise hold a thousand copies of each. Such a document keeps
// no tables of its own: it looks every value up in the shared ones, under
// their lock, since a table per document would copy the shared entries
// it uses and be dropped with the document, garbage on every load.
//
// Sharing is safe because a parsed rule is never changed: MergeRules and
// every reader build new values rather than write into the operands (see
// MergeRules). A nil *values shares nothing.
type values struct {
	shared *Values
	valueTables
	layers *layerList // the list of the layer last asked for
	key    []byte     // scratch for the keys of lists and blocks
	rare   rareFields // scratch for the rare fields of the rule being parsed
	texts  docTexts   // the document's titles and descriptions, until placed
}

// valueTables are the tables of one copy of each value, by kind: a
// document's own (values) or a tree's (Values).
type valueTables struct {
	strs       map[string]*string
	lists      map[string]*[]string
	ints       map[int64]*int64
	dataspaces map[string]*Dataspace
	dcats      map[string]*Dcat
	rares      map[string]*rareFields
	owners     map[string]*[]Owner
	filters    map[string]*[]RowFilter
}

// Values is the values shared by every document parsed with it, across
// documents: one copy of each string, list and block, as values keeps
// within one document. It is safe for concurrent use, so the units of a
// tree checked in parallel share one; it holds every value it was given
// for as long as it is kept, so a caller keeps it for one build.
type Values struct {
	mu sync.Mutex
	valueTables
}

// NewValues is an empty table of shared values.
func NewValues() *Values { return &Values{} }

// ParseDocument is ParseDocument (ParseOverlayDocument when overlay) for a
// document whose rules share their values with every document v parsed;
// a nil v shares nothing beyond the document.
func (v *Values) ParseDocument(doc *yaml11.Node, file string, overlay bool) (*Config, error) {
	cfg, err := parseDocWith(doc, file, overlay, v)
	if err != nil {
		return nil, withFile(err, file)
	}
	return cfg, nil
}

// share is the value of key k: the shared table's (global, under its
// lock) when there is one, else the document's (local); else fresh's,
// recorded in that table. With a shared table the document keeps no table
// of its own: it would be a second copy of the shared one's entries, made
// for every document and dropped with it. fresh runs without the lock: it
// may share the parts of what it makes.
func share[K comparable, V any](local *map[K]V, vs *values, global func(*Values) *map[K]V, k K, fresh func() V) V {
	if s := vs.shared; s != nil {
		s.mu.Lock()
		v, ok := (*global(s))[k]
		s.mu.Unlock()
		if ok {
			return v
		}
		made := fresh()
		s.mu.Lock()
		defer s.mu.Unlock()
		g := global(s)
		if v, ok = (*g)[k]; ok { // another document may have made it meanwhile
			return v
		}
		if *g == nil {
			*g = map[K]V{}
		}
		(*g)[k] = made
		return made
	}
	if v, ok := (*local)[k]; ok {
		return v
	}
	v := fresh()
	if *local == nil {
		*local = map[K]V{}
	}
	(*local)[k] = v
	return v
}

// shareKey is share for a key the caller has as bytes (its scratch): a
// value seen before is looked up by them, costing no key string; only a
// new one makes the string its table keeps.
func shareKey[V any](local *map[string]V, vs *values, global func(*Values) *map[string]V, key []byte, fresh func() V) V {
	if v, ok := lookup(local, vs, global, key); ok {
		return v
	}
	return share(local, vs, global, string(key), fresh)
}

// lookup is the value under key in the table share records it in (the
// shared one when there is one).
func lookup[V any](local *map[string]V, vs *values, global func(*Values) *map[string]V, key []byte) (V, bool) {
	if s := vs.shared; s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		v, ok := (*global(s))[string(key)]
		return v, ok
	}
	v, ok := (*local)[string(key)]
	return v, ok
}

// layerList is the shared list holding l alone: the layers of every rule a
// block of the document gives, until a merge adds its own.
func (vs *values) layerList(l *Layer) *layerList {
	if vs != nil && vs.layers != nil && (*vs.layers)[0] == l {
		return vs.layers
	}
	list := layerList{l}
	if vs != nil {
		vs.layers = &list
	}
	return &list
}

// str is the shared pointer to s.
func (vs *values) str(s string) *string {
	if vs == nil {
		return &s
	}
	return share(&vs.strs, vs, func(v *Values) *map[string]*string { return &v.strs }, s, func() *string { return &s })
}

// text is the shared copy of s.
func (vs *values) text(s string) string { return *vs.str(s) }

// bytes is the shared string of b's bytes.
func (vs *values) bytes(b []byte) string {
	if vs != nil {
		if p, ok := lookup(&vs.strs, vs, func(v *Values) *map[string]*string { return &v.strs }, b); ok { // no allocation for the lookup
			return *p
		}
	}
	return vs.text(string(b))
}

// listRef is the shared list with l's strings, l being the caller's
// scratch, behind the pointer the values share it by: what a rule holds
// its tags by (Rule.Tags), a word where the list is three. The list's
// capacity is its length, so an append never writes into it.
func (vs *values) listRef(l []string) *[]string {
	if vs == nil {
		shared := append(make([]string, 0, len(l)), l...)
		return &shared
	}
	vs.key = vs.key[:0]
	for _, s := range l {
		vs.key = binary.AppendUvarint(vs.key, uint64(len(s)))
		vs.key = append(vs.key, s...)
	}
	return shareKey(&vs.lists, vs, func(v *Values) *map[string]*[]string { return &v.lists }, vs.key, func() *[]string {
		shared := make([]string, len(l))
		for i, s := range l {
			shared[i] = vs.text(s)
		}
		return &shared
	})
}

// ownerList is the shared list with l's owners, l being the caller's
// scratch, behind the pointer the values share it by: what a rule holds
// its ownership by (Rule.Ownership).
func (vs *values) ownerList(l []Owner) *[]Owner {
	if vs == nil {
		shared := append(make([]Owner, 0, len(l)), l...)
		return &shared
	}
	return pairList(vs, l, &vs.owners, func(v *Values) *map[string]*[]Owner { return &v.owners },
		func(o *Owner) (*string, *string) { return &o.Name, &o.Type })
}

// filterList is the shared list with l's row filters, l being the
// caller's scratch.
func (vs *values) filterList(l []RowFilter) []RowFilter {
	if vs == nil {
		return append(make([]RowFilter, 0, len(l)), l...)
	}
	return *pairList(vs, l, &vs.filters, func(v *Values) *map[string]*[]RowFilter { return &v.filters },
		func(f *RowFilter) (*string, *string) { return &f.JSON, &f.Handler })
}

// pairList is the shared list with l's elements, each of them the two
// strings parts points at; l is the caller's scratch (shareKey: a list
// seen before costs no key string).
func pairList[T any](vs *values, l []T, local *map[string]*[]T, global func(*Values) *map[string]*[]T, parts func(*T) (*string, *string)) *[]T {
	vs.key = vs.key[:0]
	for i := range l {
		a, b := parts(&l[i])
		vs.keyString(a)
		vs.keyString(b)
	}
	return shareKey(local, vs, global, vs.key, func() *[]T {
		shared := make([]T, len(l))
		for i := range l {
			a, b := parts(&l[i])
			x, y := parts(&shared[i])
			*x, *y = vs.text(*a), vs.text(*b)
		}
		return &shared
	})
}

// int is the shared pointer to n.
func (vs *values) int(n int64) *int64 {
	if vs == nil {
		return &n
	}
	return share(&vs.ints, vs, func(v *Values) *map[int64]*int64 { return &v.ints }, n, func() *int64 { return &n })
}

// keyString appends s to the scratch key, length first; a null as a length
// no string has.
func (vs *values) keyString(s *string) {
	if s == nil {
		vs.key = binary.AppendUvarint(vs.key, 1<<62)
		return
	}
	vs.key = binary.AppendUvarint(vs.key, uint64(len(*s)))
	vs.key = append(vs.key, *s...)
}

// keyInt appends n to the scratch key; a null as a byte no number starts
// with.
func (vs *values) keyInt(n *int64) {
	if n == nil {
		vs.key = append(vs.key, 0)
		return
	}
	vs.key = append(vs.key, 1)
	vs.key = binary.AppendVarint(vs.key, *n)
}

func (vs *values) keyList(l []string) {
	vs.key = binary.AppendUvarint(vs.key, uint64(len(l)))
	for _, s := range l {
		vs.keyString(&s)
	}
}

func (vs *values) keyBool(b bool) {
	if b {
		vs.key = append(vs.key, 1)
	} else {
		vs.key = append(vs.key, 0)
	}
}

// keyTwo keys a present block of two optional strings with the flags
// saying each was stated (Temporal, Ontology).
func (vs *values) keyTwo(a, b *string, aSet, bSet bool) {
	vs.keyBool(true)
	vs.keyString(a)
	vs.keyString(b)
	vs.keyBool(aSet)
	vs.keyBool(bSet)
}

// sameDataspace is the shared block with d's values.
func (vs *values) sameDataspace(d *Dataspace) *Dataspace {
	if vs == nil {
		return d
	}
	vs.key = append(vs.key[:0], byte(d.Set))
	for f := range dataspaceFields {
		dataspaceFields[f].key(vs, d)
	}
	return shareKey(&vs.dataspaces, vs, func(v *Values) *map[string]*Dataspace { return &v.dataspaces }, vs.key, func() *Dataspace { return d })
}

// sameDcat is the shared block with d's values.
func (vs *values) sameDcat(d *Dcat) *Dcat {
	if vs == nil {
		return d
	}
	vs.key = append(vs.key[:0], byte(d.Set))
	for f := range dcatFields[:DcatTemporal] {
		dcatFields[f].key(vs, d)
	}
	if t := d.Temporal; t == nil {
		vs.keyBool(false)
	} else {
		vs.keyTwo(t.Start, t.End, t.StartSet, t.EndSet)
	}
	return shareKey(&vs.dcats, vs, func(v *Values) *map[string]*Dcat { return &v.dcats }, vs.key, func() *Dcat { return d })
}

// rareScratch is an empty block for parseRule to read a rule's rare fields
// into, before sameRare shares them: the values' scratch, or with no
// values, a block of its own.
func (vs *values) rareScratch() *rareFields {
	if vs == nil {
		return new(rareFields)
	}
	vs.rare = rareFields{} // the slices the last rule's block holds stay with it
	return &vs.rare
}

// sameRare is the shared block with the rare fields of b, the block
// rareScratch gave: most rules that state any state a few of the same
// values (a retention, a source system, a row filter), and a tree holds a
// rule per sources key. A block with extra keys, whose values are YAML
// nodes, is its own.
func (vs *values) sameRare(b *rareFields) *rareFields {
	if vs == nil {
		return b
	}
	if len(b.extra) > 0 {
		c := *b
		return &c
	}
	vs.key = vs.key[:0]
	for f := range rareFieldTable {
		rareFieldTable[f].key(vs, b)
	}
	vs.key = binary.AppendUvarint(vs.key, uint64(len(b.rowFilters)))
	for i := range b.rowFilters {
		vs.keyString(&b.rowFilters[i].JSON)
		vs.keyString(&b.rowFilters[i].Handler)
	}
	if o := b.ontology; o == nil {
		vs.keyBool(false)
	} else {
		vs.keyTwo(o.Spec, o.SpecFile, o.SpecSet, o.SpecFileSet)
	}
	return shareKey(&vs.rares, vs, func(v *Values) *map[string]*rareFields { return &v.rares }, vs.key, func() *rareFields {
		c := *b
		return &c
	})
}
