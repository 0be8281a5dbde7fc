package governance

import (
	"testing"

	"github.com/celine-eu/governanced/internal/yaml11"
	"github.com/google/go-cmp/cmp"
)

// TestSourceFile: a merged configuration names for each source key the
// file that declared it and where: a key an overlay merges into the base
// stays the base's, a key the overlay adds is the overlay's, and merging
// a merged configuration again keeps every earlier file's keys where they
// were.
func TestSourceFile(t *testing.T) {
	parse := func(doc, file string) *Config {
		t.Helper()
		c, err := Parse([]byte(doc), file)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	base := parse("sources:\n  a: {}\n  b: {}\n", "app/governance.yaml")
	overlay := parse("sources:\n  b: {tags: [x]}\n  c: {}\n  d: {}\n", "app/governance.prod.yaml")
	again := parse("sources:\n  c: {}\n  e: {}\n", "app/governance.more.yaml")
	type where struct {
		Key  string
		File string
		Pos  yaml11.Pos
	}
	list := func(c *Config) []where {
		out := make([]where, len(c.Sources))
		for i := range c.Sources {
			out[i] = where{c.Sources[i].Key, c.SourceFile(i), c.Sources[i].Pos()}
		}
		return out
	}
	for _, tt := range []struct {
		name string
		cfg  *Config
		want []where
	}{
		{"parsed", base, []where{{"a", "app/governance.yaml", yaml11.Pos{Line: 2, Column: 3}}, {"b", "app/governance.yaml", yaml11.Pos{Line: 3, Column: 3}}}},
		{"merged", MergeConfigs(base, overlay), []where{
			{"a", "app/governance.yaml", yaml11.Pos{Line: 2, Column: 3}},
			{"b", "app/governance.yaml", yaml11.Pos{Line: 3, Column: 3}},
			{"c", "app/governance.prod.yaml", yaml11.Pos{Line: 3, Column: 3}},
			{"d", "app/governance.prod.yaml", yaml11.Pos{Line: 4, Column: 3}},
		}},
		{"merged twice", MergeConfigs(MergeConfigs(base, overlay), again), []where{
			{"a", "app/governance.yaml", yaml11.Pos{Line: 2, Column: 3}},
			{"b", "app/governance.yaml", yaml11.Pos{Line: 3, Column: 3}},
			{"c", "app/governance.prod.yaml", yaml11.Pos{Line: 3, Column: 3}},
			{"d", "app/governance.prod.yaml", yaml11.Pos{Line: 4, Column: 3}},
			{"e", "app/governance.more.yaml", yaml11.Pos{Line: 3, Column: 3}},
		}},
		{"an overlay that is itself merged", MergeConfigs(base, MergeConfigs(again, overlay)), []where{
			{"a", "app/governance.yaml", yaml11.Pos{Line: 2, Column: 3}},
			{"b", "app/governance.yaml", yaml11.Pos{Line: 3, Column: 3}},
			{"c", "app/governance.more.yaml", yaml11.Pos{Line: 2, Column: 3}},
			{"e", "app/governance.more.yaml", yaml11.Pos{Line: 3, Column: 3}},
			{"d", "app/governance.prod.yaml", yaml11.Pos{Line: 4, Column: 3}},
		}},
		{"the rules rewritten", base.WithRules(base.Defaults, func(_ int, s Source) *Rule { return s.Rule }), []where{
			{"a", "app/governance.yaml", yaml11.Pos{Line: 2, Column: 3}}, {"b", "app/governance.yaml", yaml11.Pos{Line: 3, Column: 3}}}},
	} {
		if diff := cmp.Diff(tt.want, list(tt.cfg)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
