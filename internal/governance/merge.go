package governance

import (
	"slices"
)

// MergeRules combines two blocks with the per-field rules of
// governance-format.md §6: a field the override stated wins, even when false,
// null or empty; tags union; ownership and row_filters replaced only when the
// override's list is non-empty; ontology replaced whole; dcat and dataspace
// merged field by field, where a null block inherits. Neither operand changes.
//
// Each decision also decides where the merged value was written: the origin
// of every top-level field (Origin) and the provenance of every path
// (AppendProvenanceJSON) come from the side whose value the merge takes, and
// the combined fields list every stating layer.
func MergeRules(base, override *Rule) *Rule {
	return new(mergedRule).merge(base, override, nil)
}

// merge is MergeRules into m, which it empties first. room is a
// ValueMerger's: what the merge makes beside m's own (a block merged from
// two, a title and a description from two documents) is room's, and the
// merge records no places. With room nil, it is allocated, and the places
// recorded.
func (m *mergedRule) merge(base, override *Rule, room *mergeRoom) *Rule {
	// The result owns its layer list, in one allocation with it; its
	// places are its base's, or a string of their own when the merge
	// changed them.
	*m = mergedRule{}
	r := &m.rule
	*r = *base
	if base.layers != nil && len(*base.layers) < len(m.layerArray) {
		m.layers = append(m.layerArray[:0], *base.layers...)
		r.layers = &m.layers
	}
	r.Set = base.Set | override.Set
	// The merged rule's places are decided here, on the stack, and encoded
	// once; most merges change none of the base's paths.
	var posBuf, oPosBuf [numFields]position
	var bBuf, oBuf [16]pathPosition
	var buf [32]pathPosition
	out := buf[:0]
	pos, bPaths := base.decode(posBuf[:0], bBuf[:0])
	oPos, oPaths := override.decode(oPosBuf[:0], oBuf[:0])
	p := &provMerge{r: r, base: base, override: override, oPos: oPos, b: cursor{es: bPaths}, o: cursor{es: oPaths}}
	// The rare fields are merged into the result's own block, and the
	// result keeps it only when both sides have one: with one side's
	// alone, the merge's fields are that side's.
	oRare := override.rareBlock()
	m.rare = *base.rareBlock()
	rare := &m.rare
	pos = p.takeScalars(r, rare, override, oRare, pos)
	t, d := textSide(base, override, FieldTitle), textSide(base, override, FieldDescription)
	r.title, r.description, r.texts = t.title, d.description, mergedTexts(t, d, room)

	// Tags are every layer's: the entry is the last statement's, and
	// merged_from lists them all.
	r.tags = m.tagsUnion(base.tags, override.tags)
	if override.Set.Has(FieldTags) {
		pos = p.takeOrigin(pos, FieldTags)
	}
	out = p.tags(out)
	// A non-empty list replaces; when neither side lists anything, the
	// value is the (empty) base's and its place the last statement's.
	r.ownership = base.ownership
	switch bo, oo := base.Ownership(), override.Ownership(); {
	case len(oo) > 0:
		r.ownership = override.ownership
		pos = p.takeOrigin(pos, FieldOwnership)
	case len(bo) == 0 && override.Set.Has(FieldOwnership):
		pos = p.takeOrigin(pos, FieldOwnership)
	}
	switch rare.rowFilters = mergeRowFilters(rare.rowFilters, oRare.rowFilters); {
	case len(oRare.rowFilters) > 0:
		pos = p.takeOrigin(pos, FieldRowFilters)
	case len(rare.rowFilters) == 0 && override.Set.Has(FieldRowFilters):
		pos = p.takeOrigin(pos, FieldRowFilters)
	}
	// A null dcat, dataspace or ontology inherits the other side's block;
	// the block's place is the last mapping's, or with none, the last
	// statement's.
	r.Dcat, out = mergeDcat(base.Dcat, override.Dcat, p, out, room)
	if override.Set.Has(FieldDcat) && (override.Dcat != nil || base.Dcat == nil) {
		pos = p.takeOrigin(pos, FieldDcat)
	}
	var replace bool
	if out, replace = p.pick(out, pathOntologySpec, pathOntologySpecFile, oRare.ontology != nil); replace {
		rare.ontology = oRare.ontology
		pos = p.takeOrigin(pos, FieldOntology)
	} else if rare.ontology == nil && override.Set.Has(FieldOntology) {
		pos = p.takeOrigin(pos, FieldOntology)
	}
	r.Dataspace, out = mergeDataspace(base.Dataspace, override.Dataspace, p, out, room)
	if override.Set.Has(FieldDataspace) && (override.Dataspace != nil || base.Dataspace == nil) {
		pos = p.takeOrigin(pos, FieldDataspace)
	}
	rare.extra, out = mergeExtra(rare.extra, oRare.extra, p, out)
	if override.Set.Has(FieldExtra) && !base.Set.Has(FieldExtra) {
		pos = p.takeOrigin(pos, FieldExtra)
	}
	switch {
	case override.rare == nil:
		r.rare = base.rare
	case base.rare == nil:
		r.rare = override.rare
	default:
		r.rare = rare
	}
	if room == nil { // a values merge (ValueMerger) writes no places
		var placesBuf [128]byte // room for the places of most rules
		r.places = p.finish(placesBuf[:0], pos, out)
	}
	return r
}

// A ValueMerger merges as MergeRules does, for a reader that writes the
// merged values, never asks where they were written, and lets go of the
// result before the next merge: a server writing rule bodies, thousands a
// second. The operands' places are left out, so that the merge reads and
// records none, and what it makes is held in the merger's room, which
// every merge reuses: a merge allocates nothing in the common case. The
// result's Origin and AppendProvenanceJSON say nothing useful; everything
// else is MergeRules' (TestMergeValues). It is valid until the merger's
// next merge; a ValueMerger is for one goroutine at a time.
type ValueMerger struct {
	base, override Rule // the operands, without their places
	merged         mergedRule
	room           mergeRoom
}

// Merge merges override over base, as MergeRules does, in m's room.
func (m *ValueMerger) Merge(base, override *Rule) *Rule {
	m.base, m.override = *base, *override
	m.base.places, m.override.places = "", ""
	m.room = mergeRoom{}
	return m.merged.merge(&m.base, &m.override, &m.room)
}

// mergeRoom holds what a values merge makes beside its result's own room
// (mergedRule), for a merger that reuses it (ValueMerger). A rule a tree
// keeps has none: those merges allocate only what they make, and most make
// none of it.
type mergeRoom struct {
	textBlock textBlock
	dcat      Dcat
	temporal  Temporal
	dataspace Dataspace
}

// newTextBlock, newDcat, newTemporal and newDataspace are room for a
// merged block: room's, or a new one.
func (room *mergeRoom) newTextBlock() *textBlock {
	if room == nil {
		return new(textBlock)
	}
	return &room.textBlock
}

func (room *mergeRoom) newDcat() *Dcat {
	if room == nil {
		return new(Dcat)
	}
	return &room.dcat
}

func (room *mergeRoom) newTemporal() *Temporal {
	if room == nil {
		return new(Temporal)
	}
	return &room.temporal
}

func (room *mergeRoom) newDataspace() *Dataspace {
	if room == nil {
		return new(Dataspace)
	}
	return &room.dataspace
}

// takeScalars takes each single-valued field the override stated, with its
// origin, in pos: the override wins even when its value is false, null or
// empty.
func (p *provMerge) takeScalars(r *Rule, rare *rareFields, override *Rule, oRare *rareFields, pos []position) []position {
	// r and override are p's, passed apart: the table's accessors are
	// calls the compiler cannot see into, and what they are given
	// escapes, as p's decoded entries on the stack must not.
	for f := range ruleFields {
		if !override.Set.Has(Field(f)) {
			continue
		}
		if Field(f) == FieldTitle || Field(f) == FieldDescription {
			// The origin alone: MergeRules takes the texts with the
			// block they are read in.
			pos = p.takeOrigin(pos, Field(f))
		} else if s := &ruleFields[f]; s.tabled() && !s.combined {
			pos = p.takeOrigin(pos, Field(f))
			s.take(r, override)
		} else if s := &rareFieldTable[f]; s.tabled() {
			pos = p.takeOrigin(pos, Field(f))
			s.take(rare, oRare)
		}
	}
	return pos
}

// textSide is the operand a merge takes text field f from: the override
// when it stated f.
func textSide(base, override *Rule, f Field) *Rule {
	if override.Set.Has(f) {
		return override
	}
	return base
}

// mergedRule is a merge's result with room for what it owns.
type mergedRule struct {
	rule       Rule
	rare       rareFields // the rule's when both operands have rare fields
	tags       []string   // the rule's tags when both operands' are merged into a list of its own
	layerArray [4]*Layer  // the layers of a base and its overlay: every rule a tree serves
	layers     layerList
}

// MergeOwnership is the ownership MergeRules gives a merge: the override's
// list when it is non-empty, else the base's. A reader that needs only the
// owners of a rule (an index of who owns what) need not merge the rest.
func MergeOwnership(base, override []Owner) []Owner {
	if len(override) > 0 {
		return override
	}
	return base
}

// mergeRowFilters is the row filters MergeRules gives a merge: as for
// ownership, a non-empty list replaces.
func mergeRowFilters(base, override []RowFilter) []RowFilter {
	if len(override) > 0 {
		return override
	}
	return base
}

// tagsUnion is the merge's tags, the sorted union of a's and b's: an
// operand's own when it holds them all, else m's.
func (m *mergedRule) tagsUnion(a, b *[]string) *[]string {
	la, lb := listOf(a), listOf(b)
	switch {
	case len(lb) == 0 && sortedSet(la):
		return a
	case len(la) == 0 && sortedSet(lb):
		return b
	}
	m.tags = sortedUnion(la, lb)
	return &m.tags
}

// sortedUnion is the merged tags and purpose: each string once, by code point.
// When one side is empty and the other already so, it is that side: no
// copy for the merge of a source that states no tags over defaults that do.
func sortedUnion(a, b []string) []string {
	switch {
	case len(b) == 0 && sortedSet(a):
		return a
	case len(a) == 0 && sortedSet(b):
		return b
	}
	out := make([]string, 0, len(a)+len(b))
	out = append(out, a...)
	out = append(out, b...)
	slices.Sort(out) // byte order is code-point order for valid UTF-8
	return slices.Compact(out)
}

// sortedSet reports whether l holds each string once, by code point.
func sortedSet(l []string) bool {
	for i := 1; i < len(l); i++ {
		if l[i-1] >= l[i] {
			return false
		}
	}
	return true
}

// mergeDcat merges two dcat blocks, p deciding the provenance of their
// paths with each value.
func mergeDcat(base, override *Dcat, p *provMerge, out []pathPosition, room *mergeRoom) (*Dcat, []pathPosition) {
	if base == nil || override == nil {
		out, _ = p.pick(out, pathDcatPublisherURI, pathDcatTemporalEnd, override != nil)
		if base == nil {
			return override, out
		}
		return base, out
	}
	d := room.newDcat()
	*d = *base
	d.Set = base.Set | override.Set
	o := override
	var take bool
	for f := range dcatFields[:DcatTemporal] {
		c := dcatPaths[f]
		if out, take = p.pick(out, c, c, o.Set.Has(DcatField(f))); take {
			dcatFields[f].take(d, o)
		}
	}
	if out, take = p.pick(out, pathDcatTemporal, pathDcatTemporal, o.Set.Has(DcatTemporal)); take {
		switch {
		case o.Temporal == nil:
			d.Temporal = nil
		case base.Temporal == nil:
			d.Temporal = o.Temporal
		default:
			t := room.newTemporal()
			*t = *base.Temporal
			if o.Temporal.StartSet {
				t.Start, t.StartSet = o.Temporal.Start, true
			}
			if o.Temporal.EndSet {
				t.End, t.EndSet = o.Temporal.End, true
			}
			d.Temporal = t
		}
	}
	out = p.temporalBounds(out)
	return d, out
}

// mergeDataspace combines two dataspace blocks, p deciding the provenance
// of the paths with each value: purpose is a sorted union, consent_required
// and contract_required are OR-ed (an overlay cannot loosen them) and take
// every layer's statement, expose, medallion and odrl_action follow the
// override when stated. A nil (none) side yields the other side as is.
func mergeDataspace(base, override *Dataspace, p *provMerge, out []pathPosition, room *mergeRoom) (*Dataspace, []pathPosition) {
	if base == nil || override == nil {
		out, _ = p.pick(out, pathDSMedallion, pathDSExpose, override != nil)
		if base == nil {
			return override, out
		}
		return base, out
	}
	d := room.newDataspace()
	*d = *base
	d.Set = base.Set | override.Set
	for f := range dataspaceFields {
		s, c := &dataspaceFields[f], dataspacePaths[f]
		if s.combined {
			s.combine(d, base, override)
			out = p.dataspaceFlag(out, c)
			continue
		}
		var take bool
		if out, take = p.pick(out, c, c, override.Set.Has(DataspaceField(f))); take {
			s.take(d, override)
		}
	}
	return d, out
}

// mergeExtra merges the extra keys: the base's in place, the override's
// value (and place of statement) replacing a key both state, the override's
// other keys after them.
func mergeExtra(base, override []ExtraField, p *provMerge, out []pathPosition) ([]ExtraField, []pathPosition) {
	if len(override) == 0 || len(base) == 0 {
		out, _ = p.pick(out, pathExtra, pathExtra, len(override) > 0)
		if len(override) == 0 {
			return base, out
		}
		return override, out
	}
	start := len(out)
	out, oEntries := p.extraKept(out)
	res := slices.Clone(base)
	for j, o := range override {
		i := slices.IndexFunc(res, func(e ExtraField) bool { return e.Key == o.Key })
		if i >= 0 {
			res[i].Value = o.Value
		} else {
			i = len(res)
			res = append(res, o)
		}
		out = p.extraKey(out, start, oEntries, i, j)
	}
	return res, out
}

// MergeConfigs lays an overlay document over a base (governance-format.md §8):
// defaults always merged, sources merged by exact key in base order with
// overlay-only keys appended, depends_on replaced when the overlay states it,
// active following the overlay's statement, else the base's.
func MergeConfigs(base, overlay *Config) *Config {
	out := &Config{
		Active:       base.Active,
		ActiveSet:    base.ActiveSet,
		Defaults:     MergeRules(base.Defaults, overlay.Defaults),
		DependsOn:    base.DependsOn,
		DependsOnSet: base.DependsOnSet,
		Files:        append(slices.Clone(base.Files), overlay.Files...),
		Warnings:     append(slices.Clone(base.Warnings), overlay.Warnings...),
	}
	if overlay.ActiveSet {
		out.Active, out.ActiveSet = overlay.Active, true
	}
	if overlay.DependsOnSet {
		out.DependsOn, out.DependsOnSet = overlay.DependsOn, true
	}
	out.Sources = slices.Clone(base.Sources)
	out.sourceFiles = slices.Clone(base.sourceFiles)
	overlayFiles := int32(len(base.Files)) // overlay.Files' first index in out.Files
	baseKeys := len(out.Sources)
	at := make(map[string]int, len(out.Sources))
	for i, s := range out.Sources {
		if _, dup := at[s.Key]; !dup {
			at[s.Key] = i
		}
	}
	for j, s := range overlay.Sources {
		if i, ok := at[s.Key]; ok {
			out.Sources[i].Rule = MergeRules(out.Sources[i].Rule, s.Rule)
			continue
		}
		at[s.Key] = len(out.Sources)
		if f := overlayFiles + overlay.sourceFile(j); f != out.sourceFile(len(out.Sources)) {
			out.sourceFiles = append(out.sourceFiles, sourceRun{from: int32(len(out.Sources)), file: f})
		}
		out.Sources = append(out.Sources, s)
	}
	out.index = extendIndex(base.idx(), out.Sources, baseKeys)
	return out
}

// sourceRun is where a run of a configuration's sources declared in one
// of its files begins: Sources[from] on, in Files[file].
type sourceRun struct{ from, file int32 }

// SourceFile is the file that declared Sources[i] (a key an overlay merges
// into a base's stays the base's); "" when c names no file.
func (c *Config) SourceFile(i int) string {
	if f := int(c.sourceFile(i)); f < len(c.Files) {
		return c.Files[f]
	}
	return ""
}

// sourceFile is the position in Files of the file that declared
// Sources[i]: the first file's unless a run says otherwise.
func (c *Config) sourceFile(i int) int32 {
	f := int32(0)
	for _, r := range c.sourceFiles {
		if int(r.from) > i {
			break
		}
		f = r.file
	}
	return f
}
