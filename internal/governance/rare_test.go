package governance

import (
	"testing"
	"unsafe"

	yaml "go.yaml.in/yaml/v3"
)

// TestRuleSize: a tree holds a rule per sources key, so a rule's size
// class is a large part of a served tree's heap. The fields most blocks do
// not state are kept apart (rareFields), expose is a byte, the places a
// string and the tags and the ownership pointers to shared lists, so that
// a rule fits the 112-byte class; a field added to Rule itself should be
// one most blocks state.
func TestRuleSize(t *testing.T) {
	if got := unsafe.Sizeof(Rule{}); got > 112 {
		t.Errorf("a Rule takes %d bytes, more than the 112 of its size class: is the new field one most blocks state?", got)
	}
}

// TestConfigSize: a unit keeps its configurations for as long as it is
// served, and they are made while the YAML reader's nodes fill the 160-byte
// size class; a Config of that class held a span of freed nodes each, about
// 7 MB on a thousand pipelines (ADR-0027). It stays in the class below.
func TestConfigSize(t *testing.T) {
	if node := unsafe.Sizeof(yaml.Node{}); node <= 144 || node > 160 {
		t.Errorf("the YAML reader's node takes %d bytes, no longer in the 160-byte size class: look again at which class a Config should avoid", node)
	}
	if got := unsafe.Sizeof(Config{}); got > 144 {
		t.Errorf("a Config takes %d bytes, more than the 144 of its size class, and shares the YAML reader nodes' class", got)
	}
}

// TestRareFields: a block stating none of the rare fields holds no block
// for them; blocks of one document stating the same rare values share
// one; a block with extra keys has its own; a merge keeps an operand's
// block when the other has none, makes its own when both have one, and
// changes neither operand's.
func TestRareFields(t *testing.T) {
	cfg := parseWith(t, NewValues(), "governance.yaml", `
defaults:
  license: CC-BY-4.0
  retention_days: 30
sources:
  plain: {title: Plain, license: MIT}
  kept: {title: Kept, retention_days: 30}
  same: {title: Same, retention_days: 30}
  other: {title: Other, retention_days: 90, source_system: erp}
  extra1: {title: E1, retention_days: 30, team: grid}
  extra2: {title: E2, retention_days: 30, team: grid}
  ontology: {ontology: {spec: m}, attribution: A, access_requirements: all, documentation_url: http://d, user_filter_column: u}
`)
	src := map[string]*Rule{}
	for _, s := range cfg.Sources {
		src[s.Key] = s.Rule
	}
	if src["plain"].rare != nil {
		t.Error("a block stating no rare field holds a block for them")
	}
	if src["kept"].rare != src["same"].rare || src["kept"].rare != cfg.Defaults.rare {
		t.Error("blocks stating the same rare values hold a block each")
	}
	if src["kept"].rare == src["other"].rare {
		t.Error("blocks stating different rare values share one")
	}
	if src["extra1"].rare == src["extra2"].rare || src["extra1"].rare == src["kept"].rare {
		t.Error("a block with extra keys shares its block")
	}
	o := src["ontology"]
	if o.Ontology() == nil || *o.Ontology().Spec != "m" || *o.Attribution() != "A" || *o.AccessRequirements() != "all" ||
		*o.DocumentationURL() != "http://d" || *o.UserFilterColumn() != "u" || o.SourceSystem() != nil || o.RetentionDays() != nil {
		t.Errorf("the rare fields read back wrong: %+v", *o.rare)
	}

	before := renderConfig(t, cfg)
	for _, tt := range []struct {
		base, override string
		want           *rareFields // the operand's block the merge keeps; nil: one of its own
		retention      int64
		source         string
	}{
		{"plain", "kept", src["kept"].rare, 30, ""},
		{"kept", "plain", src["kept"].rare, 30, ""},
		{"kept", "other", nil, 90, "erp"},
		{"other", "kept", nil, 30, "erp"},
	} {
		m := MergeRules(src[tt.base], src[tt.override])
		if tt.want != nil && m.rare != tt.want {
			t.Errorf("%s over %s: the merge copies the one side's rare fields", tt.override, tt.base)
		}
		if tt.want == nil && (m.rare == src[tt.base].rare || m.rare == src[tt.override].rare) {
			t.Errorf("%s over %s: the merge holds an operand's rare fields", tt.override, tt.base)
		}
		if got := m.RetentionDays(); got == nil || *got != tt.retention {
			t.Errorf("%s over %s: retention_days %v, want %d", tt.override, tt.base, got, tt.retention)
		}
		if got := m.SourceSystem(); (got == nil) != (tt.source == "") || got != nil && *got != tt.source {
			t.Errorf("%s over %s: source_system %v, want %q", tt.override, tt.base, got, tt.source)
		}
	}
	if after := renderConfig(t, cfg); after != before {
		t.Errorf("merging changed an operand:\nbefore %s\nafter  %s", before, after)
	}
}
