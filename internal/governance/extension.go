package governance

import (
	"fmt"
	"slices"

	"github.com/celine-eu/governanced/internal/yaml11"
)

// Extension is a consumer's own typed fields in a governance block, such as the
// ODRL policy a dataspace component adds. Go has no subclasses: instead of
// extending Rule, a consumer pairs it with a value of its own type E that knows
// its keys, how to read them and how to merge. The type parameter keeps two
// shapes from mixing: a merge of Extended[A] with Extended[B] does not compile,
// and narrowing to the plain Rule is an explicit .Rule.
type Extension[E any] interface {
	// Keys lists the block keys the extension owns. They are taken out of
	// Rule.Extra, so they are neither lost nor carried twice.
	Keys() []string
	// Decode reads the extension from the keys of Keys() the block stated
	// (absent keys are absent from the map), reporting bad values as errors.
	Decode(stated map[string]*yaml11.Node) (E, error)
	// Merge lays override over the receiver, the base, with the same discipline
	// as MergeRules: what override did not state must not disturb the base.
	Merge(override E) E
}

// Extended is a rule with a consumer's typed extension fields.
type Extended[E Extension[E]] struct {
	*Rule
	Ext E
}

// ParseExtended reads one block (bare or nested under governance:) into a rule
// and the extension E.
func ParseExtended[E Extension[E]](block *yaml11.Node, file string) (*Extended[E], error) {
	r, err := ParseRule(block, file)
	if err != nil {
		return nil, err
	}
	return Extend[E](r)
}

// Extend splits a parsed rule's extension keys out of Extra into E.
func Extend[E Extension[E]](r *Rule) (*Extended[E], error) {
	var zero E
	keys := zero.Keys()
	stated := map[string]*yaml11.Node{}
	out := *r
	out.Extra = nil
	kept := make([]int, len(r.Extra)) // each key's place in out.Extra, -1 for an extension key
	for i, e := range r.Extra {
		if slices.Contains(keys, e.Key) {
			stated[e.Key] = e.Value
			kept[i] = -1
			continue
		}
		kept[i] = len(out.Extra)
		out.Extra = append(out.Extra, e)
	}
	if len(out.Extra) == 0 {
		out.Set &^= 1 << FieldExtra
	}
	if len(out.Extra) < len(r.Extra) {
		// The extension's keys are no longer extra keys: their provenance
		// goes with them, and the others' follows their new places.
		var es []pathPosition
		for _, e := range r.prov {
			if e.code == pathExtra {
				if int(e.index) >= len(kept) || kept[e.index] < 0 {
					continue
				}
				e.index = uint32(kept[e.index])
			}
			es = append(es, e)
		}
		out.prov = es
	}
	ext, err := zero.Decode(stated)
	if err != nil {
		origin := r.Origin(FieldExtra)
		file := ""
		if origin.Layer != nil {
			file = origin.Layer.File
		}
		return nil, &Error{Class: ClassValidation, File: file, Line: int(origin.Line), Column: int(origin.Column), Msg: fmt.Sprintf("extension fields: %v", err), Err: err}
	}
	return &Extended[E]{Rule: &out, Ext: ext}, nil
}

// MergeExtended merges the rules with MergeRules and the extensions with E's
// Merge.
func MergeExtended[E Extension[E]](base, override *Extended[E]) *Extended[E] {
	return &Extended[E]{Rule: MergeRules(base.Rule, override.Rule), Ext: base.Ext.Merge(override.Ext)}
}

// ResolveExtended resolves a name as Resolve does and carries the extension
// through the same layers: the defaults' extension merged with the matched
// source's. (Between a base and an overlay, MergeConfigs merges unknown keys
// per key, the override winning, before this sees them.)
func ResolveExtended[E Extension[E]](c *Config, name string) (*Extended[E], Match, error) {
	rule, m := c.Resolve(name)
	defaults, err := Extend[E](c.Defaults)
	if err != nil {
		return nil, m, err
	}
	out := &Extended[E]{Ext: defaults.Ext}
	if src, _ := c.Lookup(name); src != nil {
		own, err := Extend[E](src.Rule)
		if err != nil {
			return nil, m, err
		}
		out.Ext = defaults.Ext.Merge(own.Ext)
	}
	stripped, err := Extend[E](rule)
	if err != nil {
		return nil, m, err
	}
	out.Rule = stripped.Rule
	return out, m, nil
}
