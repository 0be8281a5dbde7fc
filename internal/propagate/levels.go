package propagate

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/celine-eu/governanced/internal/governance"
)

// Levels are a classification and an access level as the governance format
// normalises them (governance.Classifications, governance.AccessLevels);
// "" is none. In JSON none is null.
type Levels struct {
	Classification string
	AccessLevel    string
}

// MarshalJSON writes {"classification": …, "access_level": …}, null for none.
func (l Levels) MarshalJSON() ([]byte, error) {
	orNull := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	return json.Marshal(struct {
		Classification *string `json:"classification"`
		AccessLevel    *string `json:"access_level"`
	}{orNull(l.Classification), orNull(l.AccessLevel)})
}

// String is "pii/restricted", with "-" for none.
func (l Levels) String() string {
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	return dash(l.Classification) + "/" + dash(l.AccessLevel)
}

// classificationRank orders normalised classifications from 1 (green) to 4
// (pii), by the format's own list; 0 is none.
func classificationRank(s string) uint8 {
	return uint8(slices.Index(governance.Classifications, s) + 1)
}

// accessRank orders normalised access levels from 1 (open) to 3
// (restricted); 0 is none.
func accessRank(s string) uint8 {
	return uint8(slices.Index(governance.AccessLevels, s) + 1)
}

func classificationOf(rank uint8) string {
	if rank == 0 {
		return ""
	}
	return governance.Classifications[rank-1]
}

func accessOf(rank uint8) string {
	if rank == 0 {
		return ""
	}
	return governance.AccessLevels[rank-1]
}

var (
	topClassification = uint8(len(governance.Classifications))
	topAccess         = uint8(len(governance.AccessLevels))
)

// NormalizeLevels normalises a classification and an access level as
// written (PII, SECRET, Internal) with the format's functions; "" stays
// none. The error names the value that is neither.
func NormalizeLevels(classification, accessLevel string) (Levels, error) {
	var out Levels
	if classification != "" {
		c, err := governance.NormalizeClassification(&classification)
		if err != nil {
			return Levels{}, fmt.Errorf("classification: %w", err)
		}
		out.Classification = *c
	}
	if accessLevel != "" {
		a, err := governance.NormalizeAccessLevel(&accessLevel)
		if err != nil {
			return Levels{}, fmt.Errorf("access_level: %w", err)
		}
		out.AccessLevel = *a
	}
	return out, nil
}

// Declared is the governance a relation's rule declares.
type Declared struct {
	// Governed is whether a rule applies to the relation at all.
	Governed bool
	Levels
	// Catalogue and Dataspace are the rule's exposure gates: listed in the
	// catalogue (governance.EffectiveExpose), offered into the dataspace
	// (governance.DataspaceExpose).
	Catalogue, Dataspace bool
}

// DeclaredBy reads a resolved rule's levels, normalised, and its exposure
// gates. A level outside the format's enums is an error.
func DeclaredBy(rule *governance.Rule) (Declared, error) {
	d := Declared{Governed: true, Catalogue: governance.EffectiveExpose(rule), Dataspace: governance.DataspaceExpose(rule)}
	c, err := governance.NormalizeClassification(rule.Classification)
	if err != nil {
		return Declared{}, fmt.Errorf("classification: %w", err)
	}
	a, err := governance.NormalizeAccessLevel(rule.AccessLevel)
	if err != nil {
		return Declared{}, fmt.Errorf("access_level: %w", err)
	}
	if c != nil {
		d.Classification = *c
	}
	if a != nil {
		d.AccessLevel = *a
	}
	return d, nil
}

// Rules finds the governance rule that applies to a dataset id
// (database.schema.alias), as the service resolves one: false when none
// does.
type Rules interface {
	Rule(key string) (*governance.Rule, bool)
}
