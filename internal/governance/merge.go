package governance

import (
	"slices"
)

// MergeRules combines two blocks with the per-field rules of
// governance-format.md §6: a field the override stated wins, even when false,
// null or empty; tags union; ownership and row_filters replaced only when the
// override's list is non-empty; ontology replaced whole; dcat and dataspace
// merged field by field, where a null block inherits. Neither operand changes.
func MergeRules(base, override *Rule) *Rule {
	r := &Rule{}
	*r = *base
	r.Set = base.Set | override.Set
	takeIfSet := func(f Field) bool {
		if override.Set.Has(f) {
			r.takeOrigin(f, override)
			return true
		}
		return false
	}
	if takeIfSet(FieldTitle) {
		r.Title = override.Title
	}
	if takeIfSet(FieldDescription) {
		r.Description = override.Description
	}
	if takeIfSet(FieldExpose) {
		r.Expose = override.Expose
	}
	if takeIfSet(FieldLicense) {
		r.License = override.License
	}
	if takeIfSet(FieldAttribution) {
		r.Attribution = override.Attribution
	}
	if takeIfSet(FieldAccessLevel) {
		r.AccessLevel = override.AccessLevel
	}
	if takeIfSet(FieldAccessRequirements) {
		r.AccessRequirements = override.AccessRequirements
	}
	if takeIfSet(FieldClassification) {
		r.Classification = override.Classification
	}
	if takeIfSet(FieldRetentionDays) {
		r.RetentionDays = override.RetentionDays
	}
	if takeIfSet(FieldDocumentationURL) {
		r.DocumentationURL = override.DocumentationURL
	}
	if takeIfSet(FieldSourceSystem) {
		r.SourceSystem = override.SourceSystem
	}
	if takeIfSet(FieldUserFilterColumn) {
		r.UserFilterColumn = override.UserFilterColumn
	}

	r.Tags = sortedUnion(base.Tags, override.Tags)
	if override.Set.Has(FieldTags) {
		r.takeOrigin(FieldTags, override)
	}
	if len(override.Ownership) > 0 {
		r.Ownership = override.Ownership
		r.takeOrigin(FieldOwnership, override)
	}
	if len(override.RowFilters) > 0 {
		r.RowFilters = override.RowFilters
		r.takeOrigin(FieldRowFilters, override)
	}
	if override.Ontology != nil {
		r.Ontology = override.Ontology
		r.takeOrigin(FieldOntology, override)
	} else if !base.Set.Has(FieldOntology) && override.Set.Has(FieldOntology) {
		r.takeOrigin(FieldOntology, override)
	}
	r.Dcat = mergeDcat(base.Dcat, override.Dcat)
	if override.Dcat != nil || !base.Set.Has(FieldDcat) {
		if override.Set.Has(FieldDcat) {
			r.takeOrigin(FieldDcat, override)
		}
	}
	r.Dataspace = MergeDataspace(base.Dataspace, override.Dataspace)
	if override.Dataspace != nil || !base.Set.Has(FieldDataspace) {
		if override.Set.Has(FieldDataspace) {
			r.takeOrigin(FieldDataspace, override)
		}
	}
	r.Extra = mergeExtra(base.Extra, override.Extra)
	if override.Set.Has(FieldExtra) && !base.Set.Has(FieldExtra) {
		r.takeOrigin(FieldExtra, override)
	}
	return r
}

// sortedUnion is the merged tags and purpose: each string once, by code point.
func sortedUnion(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	out = append(out, a...)
	out = append(out, b...)
	slices.Sort(out) // byte order is code-point order for valid UTF-8
	return slices.Compact(out)
}

func mergeDcat(base, override *Dcat) *Dcat {
	if base == nil {
		return override
	}
	if override == nil {
		return base
	}
	d := *base
	d.Set = base.Set | override.Set
	o := override
	if o.Set.Has(DcatPublisherURI) {
		d.PublisherURI = o.PublisherURI
	}
	if o.Set.Has(DcatThemes) {
		d.Themes = o.Themes
	}
	if o.Set.Has(DcatLanguageURIs) {
		d.LanguageURIs = o.LanguageURIs
	}
	if o.Set.Has(DcatSpatialURIs) {
		d.SpatialURIs = o.SpatialURIs
	}
	if o.Set.Has(DcatAccrualPeriodicity) {
		d.AccrualPeriodicity = o.AccrualPeriodicity
	}
	if o.Set.Has(DcatConformsTo) {
		d.ConformsTo = o.ConformsTo
	}
	if o.Set.Has(DcatTemporal) {
		switch {
		case o.Temporal == nil:
			d.Temporal = nil
		case base.Temporal == nil:
			d.Temporal = o.Temporal
		default:
			t := *base.Temporal
			if o.Temporal.StartSet {
				t.Start, t.StartSet = o.Temporal.Start, true
			}
			if o.Temporal.EndSet {
				t.End, t.EndSet = o.Temporal.End, true
			}
			d.Temporal = &t
		}
	}
	return &d
}

// MergeDataspace combines two dataspace blocks: purpose is a sorted union,
// consent_required and contract_required are OR-ed (an overlay cannot loosen
// them), expose, medallion and odrl_action follow the override when stated. A
// nil (none) side yields the other side as is.
func MergeDataspace(base, override *Dataspace) *Dataspace {
	if base == nil {
		return override
	}
	if override == nil {
		return base
	}
	d := *base
	d.Set = base.Set | override.Set
	if override.Set.Has(DSMedallion) {
		d.Medallion = override.Medallion
	}
	if override.Set.Has(DSOdrlAction) {
		d.OdrlAction = override.OdrlAction
	}
	if override.Set.Has(DSExpose) {
		d.Expose = override.Expose
	}
	d.Purpose = sortedUnion(base.Purpose, override.Purpose)
	d.ConsentRequired = base.ConsentRequired || override.ConsentRequired
	d.ContractRequired = base.ContractRequired || override.ContractRequired
	return &d
}

func mergeExtra(base, override []ExtraField) []ExtraField {
	if len(override) == 0 {
		return base
	}
	if len(base) == 0 {
		return override
	}
	out := slices.Clone(base)
	for _, o := range override {
		replaced := false
		for i := range out {
			if out[i].Key == o.Key {
				out[i].Value = o.Value
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, o)
		}
	}
	return out
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
	at := make(map[string]int, len(out.Sources))
	for i, s := range out.Sources {
		if _, dup := at[s.Key]; !dup {
			at[s.Key] = i
		}
	}
	for _, s := range overlay.Sources {
		if i, ok := at[s.Key]; ok {
			out.Sources[i].Rule = MergeRules(out.Sources[i].Rule, s.Rule)
			continue
		}
		at[s.Key] = len(out.Sources)
		out.Sources = append(out.Sources, s)
	}
	out.index = buildIndex(out.Sources)
	return out
}
