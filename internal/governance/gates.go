package governance

// Gates are the fields of a merged rule that decide whether and how it is
// served and offered: MergeRules(base, override)'s values of them, taken
// by the same per-field rules without making the merge. A reader that
// looks at these fields of every source and drops the rule (the check)
// then allocates nothing for its tags, dcat block, places or layers.
type Gates struct {
	Expose           OptBool
	Classification   *string
	AccessLevel      *string
	Ownership        []Owner
	RowFilters       []RowFilter
	UserFilterColumn *string
	// Dataspace reports whether the merged rule has a dataspace block;
	// DataspaceExposeFlag and ConsentRequired are that block's fields,
	// false without one.
	Dataspace           bool
	DataspaceExposeFlag bool
	ConsentRequired     bool
}

// MergeGates is the Gates of MergeRules(base, override). Neither operand
// changes.
func MergeGates(base, override *Rule) Gates {
	g := Gates{Expose: base.Expose, Classification: base.Classification, AccessLevel: base.AccessLevel,
		Ownership: MergeOwnership(base.Ownership(), override.Ownership())}
	if override.Set.Has(FieldExpose) {
		g.Expose = override.Expose
	}
	if override.Set.Has(FieldClassification) {
		g.Classification = override.Classification
	}
	if override.Set.Has(FieldAccessLevel) {
		g.AccessLevel = override.AccessLevel
	}
	bRare, oRare := base.rareBlock(), override.rareBlock()
	g.RowFilters = mergeRowFilters(bRare.rowFilters, oRare.rowFilters)
	g.UserFilterColumn = bRare.userFilterColumn
	if override.Set.Has(FieldUserFilterColumn) {
		g.UserFilterColumn = oRare.userFilterColumn
	}
	switch b, o := base.Dataspace, override.Dataspace; {
	case b == nil && o == nil:
	case b == nil || o == nil:
		d := b
		if d == nil {
			d = o
		}
		g.Dataspace, g.DataspaceExposeFlag, g.ConsentRequired = true, d.Expose, d.ConsentRequired
	default: // as mergeDataspace: expose the override's when stated, consent OR-ed
		g.Dataspace, g.DataspaceExposeFlag, g.ConsentRequired = true, b.Expose, b.ConsentRequired || o.ConsentRequired
		if o.Set.Has(DSExpose) {
			g.DataspaceExposeFlag = o.Expose
		}
	}
	return g
}

// EffectiveExpose is EffectiveExpose of the merged rule.
func (g *Gates) EffectiveExpose() bool { return effectiveExpose(g.Expose, g.DataspaceExpose()) }

// DataspaceExpose is DataspaceExpose of the merged rule.
func (g *Gates) DataspaceExpose() bool { return g.Dataspace && g.DataspaceExposeFlag }

// ExposureConflict is ExposureConflict of the merged rule.
func (g *Gates) ExposureConflict() string { return exposureConflict(g.Expose, g.DataspaceExpose()) }
