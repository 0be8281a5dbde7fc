package governance

import "fmt"

// AccessLevels are the values of access_level once normalised
// (GovernanceAccessLevel), from the most open; secret is folded to
// restricted. Callers must not modify it.
var AccessLevels = []string{"open", "internal", "restricted"}

// Classifications are the values of classification once normalised
// (DataClassification), from the least sensitive. Callers must not modify it.
var Classifications = []string{"green", "yellow", "red", "pii"}

var (
	accessLevels    = setOf(AccessLevels)
	classifications = setOf(Classifications)
)

func setOf(values []string) map[string]bool {
	m := make(map[string]bool, len(values))
	for _, v := range values {
		m[v] = true
	}
	return m
}

// AccessRequirements are the values of access_requirements.
var AccessRequirements = []string{"all", "partner", "contract"}

// NormalizeAccessLevel lower-cases ASCII letters, folds secret to restricted and
// rejects anything outside open/internal/restricted. nil stays nil.
func NormalizeAccessLevel(v *string) (*string, error) {
	if v == nil {
		return nil, nil
	}
	s := asciiLower(*v)
	if s == "secret" {
		s = "restricted"
	}
	if !accessLevels[s] {
		return nil, &Error{Class: ClassValue, Msg: fmt.Sprintf("'%s' is not a valid GovernanceAccessLevel", s)}
	}
	return &s, nil
}

// NormalizeClassification lower-cases ASCII letters and rejects anything outside
// green/yellow/red/pii. nil stays nil.
func NormalizeClassification(v *string) (*string, error) {
	if v == nil {
		return nil, nil
	}
	s := asciiLower(*v)
	if !classifications[s] {
		return nil, &Error{Class: ClassValue, Msg: fmt.Sprintf("'%s' is not a valid DataClassification", s)}
	}
	return &s, nil
}
