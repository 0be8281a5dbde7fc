package diff

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/celine-eu/governanced/internal/governance"
)

// side is one side's resolved rule and what the derived changes read of it.
type side struct {
	rule *governance.Rule
	prov provenance // read when first needed
}

func (s *side) provenance() provenance {
	if s.prov == nil {
		s.prov = provenanceOf(s.rule)
	}
	return s.prov
}

// deriveChanged lists the derived changes between two resolved rules of one
// dataset.
func deriveChanged(b, h *side) []Derived {
	var out []Derived
	add := func(k Kind, field, old, new string) {
		out = append(out, Derived{Kind: k, Field: field, Old: old, New: new,
			Origin: h.provenance().atField(field), BaseOrigin: b.provenance().atField(field)})
	}
	br, hr := b.rule, h.rule

	if be, he := governance.EffectiveExpose(br), governance.EffectiveExpose(hr); be != he {
		k := CatalogueExposed
		if !he {
			k = CatalogueWithdrawn
		}
		add(k, exposeField(hr, br), strconv.FormatBool(be), strconv.FormatBool(he))
	}
	if bo, ho := governance.DataspaceExpose(br), governance.DataspaceExpose(hr); bo != ho {
		k := DataspaceOffered
		if !ho {
			k = DataspaceWithdrawn
		}
		add(k, "dataspace.expose", strconv.FormatBool(bo), strconv.FormatBool(ho))
	}

	bp, bField := rowPolicy(br)
	hp, hField := rowPolicy(hr)
	switch {
	case bp != "" && hp == "":
		add(RowPolicyRemoved, bField, bp, "none")
	case bp == "" && hp != "":
		add(RowPolicyAdded, hField, "none", hp)
	case bp != "" && bp != hp && !sameJSON([]byte(bp), []byte(hp)):
		add(RowPolicyChanged, hField, bp, hp)
	}

	if bl, hl, ok := ranks(br.AccessLevel, hr.AccessLevel, accessRank); ok && bl != hl {
		k := AccessLevelRaised
		if hl < bl {
			k = AccessLevelLowered
		}
		add(k, "access_level", levelText(br.AccessLevel), levelText(hr.AccessLevel))
	}
	if bl, hl, ok := ranks(br.Classification, hr.Classification, classificationRank); ok && bl != hl {
		k := ClassificationRaised
		if hl < bl {
			k = ClassificationLowered
		}
		add(k, "classification", levelText(br.Classification), levelText(hr.Classification))
	}

	if bo, ho := ownersText(br.Ownership()), ownersText(hr.Ownership()); bo != ho {
		add(OwnerChanged, "ownership", bo, ho)
	}
	if !sameString(br.License, hr.License) {
		add(LicenceChanged, "license", levelText(br.License), levelText(hr.License))
	}
	if consent(br) && !consent(hr) {
		add(ConsentDropped, "dataspace.consent_required", "true", "false")
	}
	if contract(br) && !contract(hr) {
		add(ContractDropped, "dataspace.contract_required", "true", "false")
	}
	return out
}

// deriveWhole lists what a dataset added or removed whole opens or
// withdraws: its listing in the catalogue, its offer into the dataspace. s
// is the side that states the dataset: the head for an added one, the base
// for a removed one.
func deriveWhole(s *side, added bool) []Derived {
	catalogue, dataspace, old, now := CatalogueWithdrawn, DataspaceWithdrawn, "true", "absent"
	if added {
		catalogue, dataspace, old, now = CatalogueExposed, DataspaceOffered, "absent", "true"
	}
	derived := func(kind Kind, field string) Derived {
		d := Derived{Kind: kind, Field: field, Old: old, New: now}
		if added {
			d.Origin = s.provenance().atField(field)
		} else {
			d.BaseOrigin = s.provenance().atField(field)
		}
		return d
	}
	var out []Derived
	if governance.EffectiveExpose(s.rule) {
		out = append(out, derived(catalogue, exposeField(s.rule, nil)))
	}
	if governance.DataspaceExpose(s.rule) {
		out = append(out, derived(dataspace, "dataspace.expose"))
	}
	return out
}

// exposeField is the field that decides r's effective expose: expose when
// stated, else the dataspace.expose it falls back to. other is the other
// side's rule: when r falls back but other states expose, the change is
// expose's having gone.
func exposeField(r, other *governance.Rule) string {
	if r.Expose.Stated() || other != nil && other.Expose.Stated() {
		return "expose"
	}
	return "dataspace.expose"
}

// rowPolicy is the row policy r declares, as text, and the field that
// declares it: a non-empty row_filters list, else a non-empty legacy
// user_filter_column (check.md §9.4); "" for none.
func rowPolicy(r *governance.Rule) (string, string) {
	if len(r.RowFilters()) > 0 {
		var b bytes.Buffer
		b.WriteByte('[')
		for i, f := range r.RowFilters() {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(f.JSON)
		}
		b.WriteByte(']')
		return b.String(), "row_filters"
	}
	if c := r.UserFilterColumn(); c != nil && *c != "" {
		return "user_filter_column: " + *c, "user_filter_column"
	}
	return "", "row_filters"
}

// The level scales, low to high (governance-format.md §11). None is below
// every level: nothing declared restricts anything.
var (
	accessScale         = []string{"open", "internal", "restricted"}
	classificationScale = []string{"green", "yellow", "red", "pii"}
)

func accessRank(v *string) (int, bool) {
	n, err := governance.NormalizeAccessLevel(v)
	if err != nil {
		return 0, false
	}
	return scaleRank(n, accessScale), true
}

func classificationRank(v *string) (int, bool) {
	n, err := governance.NormalizeClassification(v)
	if err != nil {
		return 0, false
	}
	return scaleRank(n, classificationScale), true
}

func scaleRank(v *string, scale []string) int {
	if v == nil {
		return -1
	}
	return slices.Index(scale, *v)
}

// ranks places both values on a scale; false when either is not on it (a
// value the check refuses, so never in a served tree).
func ranks(b, h *string, rank func(*string) (int, bool)) (int, int, bool) {
	br, okB := rank(b)
	hr, okH := rank(h)
	return br, hr, okB && okH
}

func levelText(v *string) string {
	if v == nil {
		return "none"
	}
	return *v
}

func sameString(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// ownersText is the owners as a set, for comparing and showing: each
// "name (type)" once, sorted.
func ownersText(os []governance.Owner) string {
	if len(os) == 0 {
		return "none"
	}
	s := make([]string, len(os))
	for i, o := range os {
		s[i] = o.Name + " (" + o.Type + ")"
	}
	slices.Sort(s)
	return strings.Join(slices.Compact(s), ", ")
}

func consent(r *governance.Rule) bool  { return r.Dataspace != nil && r.Dataspace.ConsentRequired }
func contract(r *governance.Rule) bool { return r.Dataspace != nil && r.Dataspace.ContractRequired }
