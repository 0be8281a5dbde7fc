package governance

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
func (m Match) MarshalJSON() ([]byte, error) {
	if m.Kind == MatchDefaults {
		return []byte(`{"kind":"defaults"}`), nil
	}
	return marshalNoEscape(struct {
		Kind    string `json:"kind"`
		Pattern string `json:"pattern"`
	}{m.Kind.String(), m.Pattern})
}

// Resolve returns the rule for a dataset name (governance-format.md §7): the
// exact key merged over the defaults, else the longest matching glob (ties to
// the earlier key) merged over the defaults, else the defaults alone, unmerged.
func (c *Config) Resolve(name string) (*Rule, Match) {
	src, m := c.Lookup(name)
	if src == nil {
		return c.Defaults, m
	}
	return MergeRules(c.Defaults, src.Rule), m
}

// Lookup finds the sources entry a name resolves to, without merging; nil for
// the defaults.
func (c *Config) Lookup(name string) (*Source, Match) {
	if c.index == nil {
		c.index = buildIndex(c.Sources)
	}
	i, kind := c.index.lookup(name)
	if i < 0 {
		return nil, Match{Kind: MatchDefaults}
	}
	return &c.Sources[i], Match{Kind: kind, Pattern: c.Sources[i].Key}
}

// Source returns the entry for an exact key, or nil.
func (c *Config) Source(key string) *Source {
	if c.index == nil {
		c.index = buildIndex(c.Sources)
	}
	if i, ok := c.index.exact[key]; ok {
		return &c.Sources[i]
	}
	return nil
}
