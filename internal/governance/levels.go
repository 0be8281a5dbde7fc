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

// SameAccessLevel reports whether a and b normalise to the same access level
// (NormalizeAccessLevel): ASCII case ignored, secret the same as
// restricted. A value outside the levels is the same as nothing. It
// allocates nothing, so a listing can compare every dataset with it.
func SameAccessLevel(a, b string) bool {
	na := canonical(a, AccessLevels, "secret", "restricted")
	return na != "" && na == canonical(b, AccessLevels, "secret", "restricted")
}

// SameClassification reports whether a and b normalise to the same
// classification (NormalizeClassification): ASCII case ignored. A value
// outside the classifications is the same as nothing.
func SameClassification(a, b string) bool {
	na := canonical(a, Classifications, "", "")
	return na != "" && na == canonical(b, Classifications, "", "")
}

// canonical is the member of values that v equals ignoring ASCII case, or
// folded when v equals alias so; "" when none.
func canonical(v string, values []string, alias, folded string) string {
	for _, c := range values {
		if asciiEqualFold(v, c) {
			return c
		}
	}
	if alias != "" && asciiEqualFold(v, alias) {
		return folded
	}
	return ""
}

// asciiEqualFold is strings.EqualFold for ASCII letters only: the levels'
// normalisation maps A–Z and nothing else (İ and fullwidth letters are not
// levels).
func asciiEqualFold(s, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(s); i++ {
		a, b := s[i], t[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}
