package diff

import (
	"fmt"
	"slices"
	"strings"
)

// Kind names a change a report counts and a gate can fail on. The names
// are a contract: CI jobs name them in --fail-on.
type Kind string

// The kinds, in the order a report lists them.
const (
	// A dataset key whose name the base does not resolve in its app.
	DatasetAdded Kind = "dataset-added"
	// A dataset key whose name the head does not resolve in its app.
	DatasetRemoved Kind = "dataset-removed"
	// A dataset in both trees whose resolved rule differs in any field.
	FieldChanged Kind = "field-changed"

	// The effective expose (the catalogue gate) turns true: a changed
	// dataset newly listed, or an added dataset that is listed.
	CatalogueExposed Kind = "catalogue-exposed"
	// The effective expose turns false, or a listed dataset is removed.
	CatalogueWithdrawn Kind = "catalogue-withdrawn"
	// dataspace.expose (the dataspace gate) turns true, or an added
	// dataset is offered.
	DataspaceOffered Kind = "dataspace-offered"
	// dataspace.expose turns false, or an offered dataset is removed.
	DataspaceWithdrawn Kind = "dataspace-withdrawn"
	// The row policy (a non-empty row_filters, else a non-empty legacy
	// user_filter_column) is gone: the dataset is served whole.
	RowPolicyRemoved Kind = "row-policy-removed"
	// A dataset served whole gains a row policy.
	RowPolicyAdded Kind = "row-policy-added"
	// The row policy is another one.
	RowPolicyChanged Kind = "row-policy-changed"
	// access_level moves down open < internal < restricted (secret is
	// restricted; none is below open).
	AccessLevelLowered Kind = "access-level-lowered"
	// access_level moves up the same scale.
	AccessLevelRaised Kind = "access-level-raised"
	// classification moves down green < yellow < red < pii (none is below
	// green).
	ClassificationLowered Kind = "classification-lowered"
	// classification moves up the same scale.
	ClassificationRaised Kind = "classification-raised"
	// The resolved owners (names and types, in any order) differ.
	OwnerChanged Kind = "owner-changed"
	// license differs.
	LicenceChanged Kind = "licence-changed"
	// dataspace.consent_required turns from true to false.
	ConsentDropped Kind = "consent-dropped"
	// dataspace.contract_required turns from true to false.
	ContractDropped Kind = "contract-dropped"

	// An error finding of the head tree's check that the base's has not.
	NewError Kind = "new-error"
	// A warning finding of the head tree's check that the base's has not.
	NewWarning Kind = "new-warning"
)

// Kinds are every kind, in report order.
var Kinds = []Kind{
	DatasetAdded, DatasetRemoved, FieldChanged,
	CatalogueExposed, CatalogueWithdrawn, DataspaceOffered, DataspaceWithdrawn,
	RowPolicyRemoved, RowPolicyAdded, RowPolicyChanged,
	AccessLevelLowered, AccessLevelRaised, ClassificationLowered, ClassificationRaised,
	OwnerChanged, LicenceChanged, ConsentDropped, ContractDropped,
	NewError, NewWarning,
}

// risky are the kinds that open data up, hand it to someone else or break
// the tree: a pull-request comment lists them first, and --fail-on risky
// names them all.
var risky = map[Kind]bool{
	CatalogueExposed: true, DataspaceOffered: true,
	RowPolicyRemoved: true, RowPolicyChanged: true,
	AccessLevelLowered: true, ClassificationLowered: true,
	OwnerChanged: true, LicenceChanged: true,
	ConsentDropped: true, ContractDropped: true,
	NewError: true,
}

// Risky reports whether k opens data up, hands it to someone else or breaks
// the tree.
func (k Kind) Risky() bool { return risky[k] }

// RiskyKinds are the kinds Risky reports, in report order.
func RiskyKinds() []Kind {
	var out []Kind
	for _, k := range Kinds {
		if k.Risky() {
			out = append(out, k)
		}
	}
	return out
}

// ParseKinds reads a comma-separated list of kinds, as --fail-on takes it:
// "risky" stands for every risky kind, "any" for every kind; blanks around
// names are ignored. An unknown name is an error naming it.
func ParseKinds(s string) ([]Kind, error) {
	var out []Kind
	for _, part := range strings.Split(s, ",") {
		name := strings.TrimSpace(part)
		switch {
		case name == "":
			continue
		case name == "risky":
			out = append(out, RiskyKinds()...)
		case name == "any":
			out = append(out, Kinds...)
		case slices.Contains(Kinds, Kind(name)):
			out = append(out, Kind(name))
		default:
			return nil, fmt.Errorf("unknown change kind %q (the kinds: risky, any, %s)", name, joinKinds(Kinds))
		}
	}
	slices.SortFunc(out, func(a, b Kind) int { return slices.Index(Kinds, a) - slices.Index(Kinds, b) })
	return slices.Compact(out), nil
}

func joinKinds(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}
