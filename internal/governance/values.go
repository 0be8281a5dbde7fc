package governance

import "encoding/binary"

// values holds one copy of each value a document states more than once,
// while it is parsed: a licence, a level, an owner, a tag list, a
// dataspace block written for a hundred datasets is one string, one list,
// one block in the rules that state it. The YAML reader gives every
// occurrence its own string; a large tree's rules would otherwise hold
// each repeated value once per dataset, most of their memory.
//
// Sharing is safe because a parsed rule is never changed: MergeRules and
// every reader build new values rather than write into the operands (see
// MergeRules). A nil *values shares nothing.
type values struct {
	strs       map[string]*string
	lists      map[string][]string
	ints       map[int64]*int64
	dataspaces map[string]*Dataspace
	dcats      map[string]*Dcat
	layers     *layerList // the list of the layer last asked for
	key        []byte     // scratch for the keys of lists and blocks
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
	if p, ok := vs.strs[s]; ok {
		return p
	}
	if vs.strs == nil {
		vs.strs = map[string]*string{}
	}
	p := &s
	vs.strs[s] = p
	return p
}

// text is the shared copy of s.
func (vs *values) text(s string) string { return *vs.str(s) }

// bytes is the shared string of b's bytes.
func (vs *values) bytes(b []byte) string {
	if vs != nil {
		if p, ok := vs.strs[string(b)]; ok { // no allocation for the lookup
			return *p
		}
	}
	return vs.text(string(b))
}

// list is the shared list with l's strings, l being the caller's scratch.
// Its capacity is its length, so an append never writes into it.
func (vs *values) list(l []string) []string {
	if vs == nil {
		return append(make([]string, 0, len(l)), l...)
	}
	vs.key = vs.key[:0]
	for _, s := range l {
		vs.key = binary.AppendUvarint(vs.key, uint64(len(s)))
		vs.key = append(vs.key, s...)
	}
	if shared, ok := vs.lists[string(vs.key)]; ok {
		return shared
	}
	if vs.lists == nil {
		vs.lists = map[string][]string{}
	}
	shared := make([]string, len(l))
	for i, s := range l {
		shared[i] = vs.text(s)
	}
	vs.lists[string(vs.key)] = shared
	return shared
}

// int is the shared pointer to n.
func (vs *values) int(n int64) *int64 {
	if vs == nil {
		return &n
	}
	if p, ok := vs.ints[n]; ok {
		return p
	}
	if vs.ints == nil {
		vs.ints = map[int64]*int64{}
	}
	p := &n
	vs.ints[n] = p
	return p
}

var sharedBools = [2]bool{false, true}

// boolPtr is a pointer to b shared by every rule.
func boolPtr(b bool) *bool {
	if b {
		return &sharedBools[1]
	}
	return &sharedBools[0]
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

// sameDataspace is the shared block with d's values.
func (vs *values) sameDataspace(d *Dataspace) *Dataspace {
	if vs == nil {
		return d
	}
	vs.key = append(vs.key[:0], byte(d.Set))
	vs.keyString(d.Medallion)
	vs.keyBool(d.ContractRequired)
	vs.keyBool(d.ConsentRequired)
	vs.keyString(&d.OdrlAction)
	vs.keyList(d.Purpose)
	vs.keyBool(d.Expose)
	if shared, ok := vs.dataspaces[string(vs.key)]; ok {
		return shared
	}
	if vs.dataspaces == nil {
		vs.dataspaces = map[string]*Dataspace{}
	}
	vs.dataspaces[string(vs.key)] = d
	return d
}

// sameDcat is the shared block with d's values.
func (vs *values) sameDcat(d *Dcat) *Dcat {
	if vs == nil {
		return d
	}
	vs.key = append(vs.key[:0], byte(d.Set))
	vs.keyString(d.PublisherURI)
	vs.keyList(d.Themes)
	vs.keyList(d.LanguageURIs)
	vs.keyList(d.SpatialURIs)
	vs.keyString(d.AccrualPeriodicity)
	vs.keyString(d.ConformsTo)
	if t := d.Temporal; t == nil {
		vs.key = append(vs.key, 0)
	} else {
		vs.key = append(vs.key, 1)
		vs.keyString(t.Start)
		vs.keyString(t.End)
		vs.keyBool(t.StartSet)
		vs.keyBool(t.EndSet)
	}
	if shared, ok := vs.dcats[string(vs.key)]; ok {
		return shared
	}
	if vs.dcats == nil {
		vs.dcats = map[string]*Dcat{}
	}
	vs.dcats[string(vs.key)] = d
	return d
}
