package governance

import "fmt"

// Access levels (GovernanceAccessLevel); secret is folded to restricted.
var accessLevels = map[string]bool{"open": true, "internal": true, "restricted": true}

// Classifications (DataClassification).
var classifications = map[string]bool{"green": true, "yellow": true, "red": true, "pii": true}

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
