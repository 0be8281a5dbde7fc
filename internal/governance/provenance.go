package governance

import (
	"slices"
	"strconv"

	"github.com/celine-eu/governanced/internal/jsonstring"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// Provenance says, for every field path a rule states, which layer, file and
// position supplied its value (http-api.md, explain=true).
//
// A rule's top-level fields keep their positions in its places. The paths
// below them (ontology.spec, dcat.temporal.start, dataspace.expose), the
// extra keys, and the layers a combined field was merged from (merged_from)
// are entries after them (see places.go). They are
// kept in the rule, not in its Dcat, Dataspace or Extra values: a merge shares
// those values between rules, while layer slots are each rule's own.
//
// Parsing records what a block states; MergeRules, mergeDcat, mergeDataspace
// and mergeExtra decide each entry in the same branch that decides the value
// (provMerge), so the merge table of governance-format.md §6 is written once.

// pathCode names a path below the top level, or the merged_from list of a
// field that combines layers. Entries are kept sorted by code: the codes
// follow the order of their parent fields (dcat before ontology, as in
// Field), so a rule's entries render in one pass beside its fields.
type pathCode uint8

const (
	pathTagsFrom pathCode = iota // the tags statements tags was merged from
	pathDcatPublisherURI
	pathDcatThemes
	pathDcatLanguageURIs
	pathDcatSpatialURIs
	pathDcatAccrualPeriodicity
	pathDcatConformsTo
	pathDcatTemporal
	// A mark, with no position: a layer of the rule stated dcat.temporal:
	// null, so temporal.start and end stated before it do not count.
	pathDcatTemporalReset
	pathDcatTemporalStart
	pathDcatTemporalEnd
	pathOntologySpec
	pathOntologySpecFile
	pathDSMedallion
	pathDSContractRequired
	pathDSContractRequiredFrom
	pathDSConsentRequired
	pathDSConsentRequiredFrom
	pathDSOdrlAction
	pathDSPurpose
	pathDSPurposeFrom
	pathDSExpose
	pathExtra // an extra key: index is its place in Rule.Extra
	numPathCodes
)

// pathInfo is what rendering needs of a code: the rendered path ("" for a
// merged_from list or a mark), the top-level field it renders after, and for
// a field that combines layers, the code of its merged_from list.
var pathInfo = [numPathCodes]struct {
	path   string
	parent Field
	from   pathCode // 0 (pathTagsFrom, never a sub-path's list) for none
}{
	pathTagsFrom:               {"", FieldTags, 0},
	pathOntologySpec:           {"ontology.spec", FieldOntology, 0},
	pathOntologySpecFile:       {"ontology.spec_file", FieldOntology, 0},
	pathDcatPublisherURI:       {"dcat.publisher_uri", FieldDcat, 0},
	pathDcatThemes:             {"dcat.themes", FieldDcat, 0},
	pathDcatLanguageURIs:       {"dcat.language_uris", FieldDcat, 0},
	pathDcatSpatialURIs:        {"dcat.spatial_uris", FieldDcat, 0},
	pathDcatAccrualPeriodicity: {"dcat.accrual_periodicity", FieldDcat, 0},
	pathDcatConformsTo:         {"dcat.conforms_to", FieldDcat, 0},
	pathDcatTemporal:           {"dcat.temporal", FieldDcat, 0},
	pathDcatTemporalReset:      {"", FieldDcat, 0},
	pathDcatTemporalStart:      {"dcat.temporal.start", FieldDcat, 0},
	pathDcatTemporalEnd:        {"dcat.temporal.end", FieldDcat, 0},
	pathDSMedallion:            {"dataspace.medallion", FieldDataspace, 0},
	pathDSContractRequired:     {"dataspace.contract_required", FieldDataspace, pathDSContractRequiredFrom},
	pathDSContractRequiredFrom: {"", FieldDataspace, 0},
	pathDSConsentRequired:      {"dataspace.consent_required", FieldDataspace, pathDSConsentRequiredFrom},
	pathDSConsentRequiredFrom:  {"", FieldDataspace, 0},
	pathDSOdrlAction:           {"dataspace.odrl_action", FieldDataspace, 0},
	pathDSPurpose:              {"dataspace.purpose", FieldDataspace, pathDSPurposeFrom},
	pathDSPurposeFrom:          {"", FieldDataspace, 0},
	pathDSExpose:               {"dataspace.expose", FieldDataspace, 0},
	pathExtra:                  {"", FieldExtra, 0},
}

var dcatPaths = [numDcatFields]pathCode{pathDcatPublisherURI, pathDcatThemes, pathDcatLanguageURIs, pathDcatSpatialURIs, pathDcatAccrualPeriodicity, pathDcatConformsTo, pathDcatTemporal}

var dataspacePaths = [numDSFields]pathCode{pathDSMedallion, pathDSContractRequired, pathDSConsentRequired, pathDSOdrlAction, pathDSPurpose, pathDSExpose}

// pathPosition is one provenance entry, decoded: a position with the path
// it is for.
//
// A rule's places hold its entries sorted by code; entries of one code are
// in layer order (a merged_from list) or Extra order (extra keys). Like the
// positions, they hold no pointer, so their one allocation is one the
// collector need not scan.
type pathPosition struct {
	Line, Column int32
	index        uint32 // pathExtra: the key's place in Rule.Extra
	layer        uint8  // a slot of Rule.layers, from 1; 0 for a mark
	code         pathCode
}

// parsedPaths appends the entries of the paths below field f that a block
// states in v, the value of f, parsed without error. slot is the layer's.
func parsedPaths(es []pathPosition, f Field, v *yaml11.Node, slot uint8) []pathPosition {
	if v.Kind != yaml11.Map {
		return es // a null sub-block states nothing below it
	}
	at := func(c pathCode, n *yaml11.Node) pathPosition {
		return pathPosition{Line: int32(n.Pos.Line), Column: int32(n.Pos.Column), layer: slot, code: c}
	}
	switch f {
	case FieldOntology:
		if s := v.Get("spec"); s != nil {
			es = append(es, at(pathOntologySpec, s))
		}
		if s := v.Get("spec_file"); s != nil {
			es = append(es, at(pathOntologySpecFile, s))
		}
	case FieldDcat:
		for _, pair := range v.Pairs {
			if pair.Key.Kind != yaml11.String {
				continue
			}
			i := slices.Index(dcatKeys[:], pair.Key.Str)
			if i < 0 {
				continue
			}
			es = append(es, at(dcatPaths[i], pair.Value))
			if dcatPaths[i] != pathDcatTemporal {
				continue
			}
			t := pair.Value
			if t.Kind != yaml11.Map {
				es = append(es, pathPosition{code: pathDcatTemporalReset})
				continue
			}
			if s := t.Get("start"); s != nil {
				es = append(es, at(pathDcatTemporalStart, s))
			}
			if e := t.Get("end"); e != nil {
				es = append(es, at(pathDcatTemporalEnd, e))
			}
		}
	case FieldDataspace:
		for _, pair := range v.Pairs {
			if pair.Key.Kind != yaml11.String {
				continue
			}
			if i := slices.Index(dataspaceKeys[:], pair.Key.Str); i >= 0 {
				es = append(es, at(dataspacePaths[i], pair.Value))
			}
		}
	}
	return es
}

// provMerge carries the operands' entries through one MergeRules: each
// decision about a value takes the entries of its path from the side whose
// value it takes. Entries are asked for in code order; the merged rule's are
// built in a buffer the caller passes along (out), which stays on its stack.
type provMerge struct {
	r, base, override *Rule
	oPos              []position // the override's field positions
	b, o              cursor     // the operands' entries
}

// takeOrigin gives field f, in the merged rule's field positions pos, the
// override's place, whose value the merge takes.
func (p *provMerge) takeOrigin(pos []position, f Field) []position {
	var o position
	if i := slices.IndexFunc(p.oPos, func(q position) bool { return q.field == f }); i >= 0 {
		o = p.oPos[i]
	}
	return withPosition(pos, position{Line: o.Line, Column: o.Column, field: f, layer: p.r.layerSlot(p.override.layerAt(o.layer))})
}

// cursor reads entries sorted by code, in code order. It moves by index,
// never by reslicing through a pointer, so that a merge's decoded entries
// stay on its stack.
type cursor struct {
	es []pathPosition
	at int // the first entry not yet reached
}

// done reports whether every entry was reached.
func (c *cursor) done() bool { return c.at >= len(c.es) }

// span returns the entries with code code and moves past them; the entries
// before code are skipped.
func (c *cursor) span(code pathCode) []pathPosition { return c.spanRange(code, code) }

// spanRange is span for the codes lo…hi.
func (c *cursor) spanRange(lo, hi pathCode) []pathPosition {
	i := c.at
	for i < len(c.es) && c.es[i].code < lo {
		i++
	}
	j := i
	for j < len(c.es) && c.es[j].code <= hi {
		j++
	}
	c.at = j
	return c.es[i:j]
}

// add appends es: the base's as they are (the merged rule starts with the
// base's layer slots), the override's with their layers given slots of the
// merged rule.
func (p *provMerge) add(out, es []pathPosition, fromOverride bool) []pathPosition {
	for _, e := range es {
		if fromOverride && e.layer != 0 {
			e.layer = p.r.layerSlot(p.override.layerAt(e.layer))
		}
		out = append(out, e)
	}
	return out
}

// addAs is add for the statements of a merged_from list: each under code c.
func (p *provMerge) addAs(out, es []pathPosition, c pathCode, fromOverride bool) []pathPosition {
	n := len(out)
	out = p.add(out, es, fromOverride)
	for i := n; i < len(out); i++ {
		out[i].code = c
	}
	return out
}

// pick takes the entries of the paths lo…hi from the override when
// fromOverride, else from the base, and returns fromOverride: a value's
// decision reads `if p.pick(…, override states it) { take the value }`.
func (p *provMerge) pick(out []pathPosition, lo, hi pathCode, fromOverride bool) ([]pathPosition, bool) {
	if p.b.done() && p.o.done() {
		return out, fromOverride
	}
	b, o := p.b.spanRange(lo, hi), p.o.spanRange(lo, hi)
	if fromOverride {
		return p.add(out, o, true), true
	}
	return p.add(out, b, false), false
}

// combined is a field every stating layer contributes to (tags, purpose, the
// OR-ed dataspace flags): its entry is the last statement's, and when more
// than one layer stated it, merged_from lists them all in layer order. main
// is the entry of each operand (nil when it states nothing), and a side
// merged from several layers holds its own list in from.
func (p *provMerge) combined(out, bMain, oMain []pathPosition, main, from pathCode) []pathPosition {
	bFrom, oFrom := p.b.span(from), p.o.span(from)
	if main != pathTagsFrom { // tags' entry is a top-level position
		if len(oMain) > 0 {
			out = p.add(out, oMain, true)
		} else {
			out = p.add(out, bMain, false)
		}
	}
	if len(bFrom) == 0 {
		bFrom = bMain
	}
	if len(oFrom) == 0 {
		oFrom = oMain
	}
	if len(bFrom)+len(oFrom) > 1 {
		out = p.addAs(out, bFrom, from, false)
		out = p.addAs(out, oFrom, from, true)
	}
	return out
}

// tags is combined for tags, whose statements are the top-level positions.
func (p *provMerge) tags(out []pathPosition) []pathPosition {
	var bOne, oOne [1]pathPosition
	bMain, oMain := tagsStatement(bOne[:0], p.base), tagsStatement(oOne[:0], p.override)
	return p.combined(out, bMain, oMain, pathTagsFrom, pathTagsFrom)
}

// tagsStatement appends r's tags statement to es when it states tags.
func tagsStatement(es []pathPosition, r *Rule) []pathPosition {
	if pos := r.pos(FieldTags); r.Set.Has(FieldTags) && pos.layer != 0 {
		es = append(es, pathPosition{Line: pos.Line, Column: pos.Column, layer: pos.layer})
	}
	return es
}

// dataspaceFlag is combined for a dataspace field whose value every layer's
// mapping contributes to.
func (p *provMerge) dataspaceFlag(out []pathPosition, main pathCode) []pathPosition {
	if p.b.done() && p.o.done() {
		return out
	}
	return p.combined(out, p.b.span(main), p.o.span(main), main, pathInfo[main].from)
}

// temporalBounds decides dcat.temporal.start and end as the layers state
// them in order: the override's statement, else the base's unless a layer of
// the override reset temporal with a null. (Values merge in two steps, and
// there a null in the override's first layer does not reset what the base
// states when the override's last layer holds a mapping; provenance follows
// the layers' order.)
func (p *provMerge) temporalBounds(out []pathPosition) []pathPosition {
	if p.b.done() && p.o.done() {
		return out
	}
	bReset, oReset := p.b.span(pathDcatTemporalReset), p.o.span(pathDcatTemporalReset)
	if len(bReset)+len(oReset) > 0 {
		out = append(out, pathPosition{code: pathDcatTemporalReset})
	}
	for _, c := range [...]pathCode{pathDcatTemporalStart, pathDcatTemporalEnd} {
		b, o := p.b.span(c), p.o.span(c)
		switch {
		case len(o) > 0:
			out = p.add(out, o, true)
		case len(oReset) == 0:
			out = p.add(out, b, false)
		}
	}
	return out
}

// extraKept starts the extra keys of a merge that keeps the base's keys in
// place: their entries, before the override's are laid over them.
func (p *provMerge) extraKept(out []pathPosition) ([]pathPosition, []pathPosition) {
	return p.add(out, p.b.span(pathExtra), false), p.o.span(pathExtra)
}

// extraKey gives the key at place i of the merged Extra the override's
// entry for its key at place j; start is where the extra entries begin in
// out, o the override's extra entries.
func (p *provMerge) extraKey(out []pathPosition, start int, o []pathPosition, i, j int) []pathPosition {
	k := slices.IndexFunc(o, func(e pathPosition) bool { return e.index == uint32(j) })
	if k < 0 {
		return out
	}
	e := o[k]
	e.index = uint32(i)
	e.layer = p.r.layerSlot(p.override.layerAt(e.layer))
	for n := start; n < len(out); n++ {
		if out[n].index == uint32(i) {
			out[n] = e
			return out
		}
	}
	out = append(out, e)
	// Extra entries are in key order; a base key without an entry (a rule
	// built by hand) could put a replaced key after a new one.
	if n := len(out); n-start > 1 && out[n-2].index > e.index {
		slices.SortStableFunc(out[start:], func(a, b pathPosition) int { return int(a.index) - int(b.index) })
	}
	return out
}

// finish gives the merged rule its places, its field positions pos and its
// entries out encoded after dst (the caller's room to encode them in): the
// base's own when the merge changed none of them, else a copy of their
// own.
func (p *provMerge) finish(dst []byte, pos []position, out []pathPosition) places {
	if len(pos)+len(out) == 0 {
		return ""
	}
	dst = appendPlaces(dst, pos, out)
	if string(dst) == string(p.base.places) {
		return p.base.places
	}
	return places(dst)
}

// ProvenanceEntry is one path of a rule's provenance, as AppendProvenanceJSON
// renders it: where the value was written, and for a field every stating
// layer contributes to, each contributing statement.
type ProvenanceEntry struct {
	Path string // "title", "dcat.temporal.start", "extra.<key>"
	Origin
	// MergedFrom lists every statement the value was merged from, in layer
	// order, when more than one layer stated it; nil otherwise.
	MergedFrom []Origin
}

// Provenance is the rule's provenance as a list: the entries of
// AppendProvenanceJSON, in its order, for a caller that presents them rather
// than serialises them.
func (r *Rule) Provenance() []ProvenanceEntry {
	var out []ProvenanceEntry
	r.eachProvenance(func(path, extraKey string, e pathPosition, from []pathPosition) {
		pe := ProvenanceEntry{Path: path, Origin: r.origin(e)}
		if path == "" {
			pe.Path = "extra." + extraKey
		}
		if len(from) > 1 {
			pe.MergedFrom = make([]Origin, len(from))
			for i, m := range from {
				pe.MergedFrom[i] = r.origin(m)
			}
		}
		out = append(out, pe)
	})
	return out
}

func (r *Rule) origin(e pathPosition) Origin {
	return Origin{Layer: r.layerAt(e.layer), Line: e.Line, Column: e.Column}
}

// eachProvenance calls fn for every path the rule states, in rendering order
// (the fields in Field order, each followed by its ontology, dcat or
// dataspace sub-paths, then the extra keys in Extra order): path is the
// rendered path, "" for an extra key, which extraKey then names; from is the
// merged_from list of a field that combines layers. A path no file stated (a
// rule built by hand) is not visited.
func (r *Rule) eachProvenance(fn func(path, extraKey string, e pathPosition, from []pathPosition)) {
	es := cursor{es: r.paths(make([]pathPosition, 0, r.countPaths()))}
	for f := Field(0); f < FieldExtra; f++ {
		if p := r.pos(f); r.Set.Has(f) && p.layer != 0 {
			var from []pathPosition
			if f == FieldTags {
				from = es.span(pathTagsFrom)
			}
			fn(f.Key(), "", pathPosition{Line: p.Line, Column: p.Column, layer: p.layer}, from)
		}
		for !es.done() && pathInfo[es.es[es.at].code].parent == f {
			e := es.es[es.at]
			es.at++
			info := pathInfo[e.code]
			if info.path == "" || e.layer == 0 {
				continue // a merged_from list (taken with its entry) or a mark
			}
			var from []pathPosition
			if info.from != 0 {
				from = es.span(info.from)
			}
			fn(info.path, "", e, from)
		}
	}
	extra := r.Extra()
	for _, e := range es.es[es.at:] {
		if e.code != pathExtra || int(e.index) >= len(extra) || e.layer == 0 {
			continue
		}
		fn("", extra[e.index].Key, e, nil)
	}
}

// AppendProvenanceJSON appends the rule's provenance object to dst: for every
// field path the rule states, in rendering order (the fields in Field order,
// each followed by its ontology, dcat or dataspace sub-paths, then
// "extra.<key>" in Extra order), {"layer","file","line","column"} of the
// statement that supplied the value, with "merged_from" listing every
// contributing statement for tags, dataspace.purpose and the OR-ed
// dataspace flags when more than one layer stated them. A path no file stated
// (a rule built by hand) has no entry.
func (r *Rule) AppendProvenanceJSON(dst []byte) []byte {
	dst = append(dst, '{')
	n := 0 // paths written
	r.eachProvenance(func(path, extraKey string, e pathPosition, from []pathPosition) {
		if n > 0 {
			dst = append(dst, ',')
		}
		if path != "" {
			dst = jsonstring.Append(dst, path)
		} else {
			// "extra." and the key escaped as the key alone is: write the
			// key's JSON string, then drop its opening quote.
			dst = append(dst, `"extra.`...)
			at := len(dst)
			dst = jsonstring.Append(dst, extraKey)
			dst = append(dst[:at], dst[at+1:]...)
		}
		dst = append(dst, ':')
		dst = r.appendEntry(dst, e, from)
		n++
	})
	return append(dst, '}')
}

// appendEntry appends one path's origin object, with merged_from when from
// lists more than one statement.
func (r *Rule) appendEntry(dst []byte, e pathPosition, from []pathPosition) []byte {
	dst = r.appendOrigin(dst, e)
	if len(from) > 1 {
		dst = append(dst, `,"merged_from":[`...)
		for i, m := range from {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(r.appendOrigin(dst, m), '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendOrigin appends {"layer","file","line","column" without the closing
// brace.
func (r *Rule) appendOrigin(dst []byte, e pathPosition) []byte {
	l := r.layerAt(e.layer)
	dst = append(dst, `{"layer":`...)
	dst = jsonstring.Append(dst, l.Name)
	dst = append(dst, `,"file":`...)
	dst = jsonstring.Append(dst, l.File)
	dst = append(dst, `,"line":`...)
	dst = strconv.AppendInt(dst, int64(e.Line), 10)
	dst = append(dst, `,"column":`...)
	return strconv.AppendInt(dst, int64(e.Column), 10)
}
