// Package propagatetest holds the governance rules that tests of
// propagate, and of the packages that call it, look datasets up in.
package propagatetest

import "github.com/celine-eu/governanced/internal/governance"

// Rules are governance rules by dataset id (database.schema.alias): a
// propagate.Rules over a map.
type Rules map[string]*governance.Rule

// Rule returns the rule of key, false when there is none.
func (r Rules) Rule(key string) (*governance.Rule, bool) {
	rule, ok := r[key]
	return rule, ok
}

// Rule is a rule stating a classification and an access level as written
// ("" for unset), and the exposure gates.
func Rule(classification, access string, expose, dataspace bool) *governance.Rule {
	r := &governance.Rule{}
	if classification != "" {
		r.Classification = &classification
	}
	if access != "" {
		r.AccessLevel = &access
	}
	if expose {
		r.Expose = governance.OptBoolOf(expose)
	}
	if dataspace {
		r.Dataspace = &governance.Dataspace{Expose: true}
	}
	return r
}
