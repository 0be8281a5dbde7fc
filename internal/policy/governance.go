package policy

import (
	"bytes"
	"encoding/json"
)

// GovernanceLookup resolves the governance rule that applies to a warehouse
// relation (database.schema.alias, as dbt writes it). The result is the
// rule's set-field view as a JSON-like map (`classification`, `dataspace` →
// `expose`, …); false when no rule applies.
//
// The policy engine knows no governance format: whoever loads the governance
// tree implements this, and the changeset builder consults it so that each
// node's meta carries its rule under `governance.` (a policy then writes
// `meta: {key: governance.classification, op: eq, value: pii}`).
type GovernanceLookup interface {
	Governance(relation string) (map[string]any, bool)
}

// GovernanceMetaKey is the meta key the resolved governance rule is merged under.
const GovernanceMetaKey = "governance"

// WithGovernance returns meta with the governance rule merged under
// "governance". The resolved rule wins over what dbt meta already states there
// (the tree is the source of truth for governance); keys only the dbt meta has
// are kept, merging nested mappings key by key. meta itself is not modified.
func WithGovernance(meta map[string]any, rule map[string]any) map[string]any {
	out := make(map[string]any, len(meta)+1)
	for k, v := range meta {
		out[k] = v
	}
	resolved := canonical(rule)
	if existing, ok := out[GovernanceMetaKey].(map[string]any); ok {
		out[GovernanceMetaKey] = deepMerge(existing, resolved)
	} else {
		out[GovernanceMetaKey] = resolved
	}
	return out
}

// AttachGovernance merges the governance rule of every model that names its
// Relation into the model's meta. A nil lookup does nothing.
func (cs *Changeset) AttachGovernance(g GovernanceLookup) {
	if g == nil {
		return
	}
	for _, m := range cs.Models {
		if m.Relation == "" {
			continue
		}
		if rule, ok := g.Governance(m.Relation); ok {
			m.Meta = WithGovernance(m.Meta, rule)
		}
	}
}

func deepMerge(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if bm, ok := out[k].(map[string]any); ok {
			if om, ok := v.(map[string]any); ok {
				out[k] = deepMerge(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// canonical brings a map from any producer ([]string, int, nested structs…)
// into the engine's JSON value form, so equality and lookups behave the same
// as for meta read from a manifest.
func canonical(m map[string]any) map[string]any {
	data, err := json.Marshal(m)
	if err != nil {
		// A value JSON cannot represent (a channel, a func) has no place in a
		// governance rule; keep what the producer gave rather than drop it.
		return m
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		return m
	}
	return normalizeObject(out)
}
