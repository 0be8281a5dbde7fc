package governance

import (
	"github.com/celine-eu/governanced/internal/jsonstring"
)

// MatchKind says how a dataset name found its rule.
type MatchKind uint8

const (
	MatchDefaults MatchKind = iota // no sources key matched: the defaults alone
	MatchExact                     // a sources key equal to the name
	MatchGlob                      // the longest matching glob key
)

func (k MatchKind) String() string {
	switch k {
	case MatchExact:
		return "exact"
	case MatchGlob:
		return "glob"
	}
	return "defaults"
}

// Match is how a name resolved: the kind and, unless defaults, the key.
type Match struct {
	Kind    MatchKind
	Pattern string
}

// MarshalJSON renders {"kind": …, "pattern": …}, without pattern for defaults.
func (m Match) MarshalJSON() ([]byte, error) { return m.AppendJSON(nil), nil }

// AppendJSON appends what MarshalJSON renders to dst: a response body writes
// the match into its own buffer.
func (m Match) AppendJSON(dst []byte) []byte {
	if m.Kind == MatchDefaults {
		return append(dst, defaultsMatchJSON...)
	}
	return append(jsonstring.Append(m.appendHead(dst), m.Pattern), '}')
}

// AppendJSONPatternAs is AppendJSON for a caller that has already encoded
// the pattern as a JSON string: a rule body has just written the dataset
// name, which an exact match's pattern repeats.
func (m Match) AppendJSONPatternAs(dst, patternJSON []byte) []byte {
	if m.Kind == MatchDefaults {
		return append(dst, defaultsMatchJSON...)
	}
	return append(append(m.appendHead(dst), patternJSON...), '}')
}

// defaultsMatchJSON is a defaults match, which has no pattern.
const defaultsMatchJSON = `{"kind":"defaults"}`

// appendHead appends a non-default match's JSON up to its pattern's value.
func (m Match) appendHead(dst []byte) []byte {
	dst = append(dst, `{"kind":"`...)
	dst = append(dst, m.Kind.String()...)
	return append(dst, `","pattern":`...)
}

// Resolve returns the rule for a dataset name (governance-format.md §7): the
// exact key merged over the defaults, else the longest matching glob (ties to
// the earlier key) merged over the defaults, else the defaults alone, unmerged.
// The rule is shared with later calls: treat it as read-only.
func (c *Config) Resolve(name string) (*Rule, Match) {
	ix := c.idx()
	i, kind, key := ix.lookup(name)
	if i < 0 {
		return c.Defaults, Match{Kind: MatchDefaults}
	}
	return c.resolvedAt(ix, i), Match{Kind: kind, Pattern: key}
}

// ResolveKey is the rule of one sources entry merged over the defaults: what
// Resolve(key) returns for the key's own name.
func (c *Config) ResolveKey(key string) (*Rule, bool) {
	ix := c.idx()
	i := ix.keys.Lookup(key)
	if i < 0 {
		return nil, false
	}
	return c.resolvedAt(ix, i), true
}

func (c *Config) resolvedAt(ix *index, i int) *Rule {
	slot := &ix.cache(len(c.Sources))[i]
	if r := slot.Load(); r != nil {
		return r
	}
	r := MergeRules(c.Defaults, c.Sources[i].Rule)
	slot.Store(r)
	return r
}

// WithRules is a copy of c whose defaults are defaults and whose sources
// entries keep their keys, in order, each with the rule rule returns for it
// (i is the entry's position in c.Sources).
// The copy shares c's index of keys, which depends on the keys alone, but not
// its cache of merged rules: those were merged from c's rules.
func (c *Config) WithRules(defaults *Rule, rule func(i int, s Source) *Rule) *Config {
	out := *c
	out.Defaults = defaults
	out.Sources = make([]Source, len(c.Sources))
	for i, s := range c.Sources {
		s.Rule = rule(i, s)
		out.Sources[i] = s
	}
	if c.index != nil {
		out.index = &index{keys: c.index.keys}
	}
	return &out
}

// idx returns the index; configurations built by this package always have one,
// a zero Config gets one on first use.
func (c *Config) idx() *index {
	if c.index == nil {
		c.index = buildIndex(c.Sources)
	}
	return c.index
}

// Lookup finds the sources entry a name resolves to, without merging; nil for
// the defaults.
func (c *Config) Lookup(name string) (*Source, Match) {
	i, m := c.LookupIndex(name)
	if i < 0 {
		return nil, m
	}
	return &c.Sources[i], m
}

// LookupIndex is Lookup answering with the entry's position in Sources, -1
// for the defaults.
func (c *Config) LookupIndex(name string) (int, Match) {
	i, kind, key := c.idx().lookup(name)
	if i < 0 {
		return -1, Match{Kind: MatchDefaults}
	}
	return i, Match{Kind: kind, Pattern: key}
}

// Source returns the entry for an exact key, or nil.
func (c *Config) Source(key string) *Source {
	if i := c.idx().keys.Lookup(key); i >= 0 {
		return &c.Sources[i]
	}
	return nil
}
