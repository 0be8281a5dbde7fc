package governance

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/celine-eu/governanced/internal/jsonstring"
)

// TestMergeGates checks MergeGates against the merged rule it stands for,
// over every ordered pair of a set of blocks stating the gates' fields in
// turn: set, null, false, empty, absent.
func TestMergeGates(t *testing.T) {
	cfg := parseWith(t, NewValues(), "governance.yaml", `
defaults:
  expose: true
  classification: internal
  ownership: [{name: team-a}]
sources:
  none: {}
  plain: {title: Plain}
  hidden: {expose: false}
  nullexpose: {expose: null}
  shown: {expose: true, access_level: open}
  nulllevels: {classification: null, access_level: null}
  levels: {classification: secret, access_level: restricted}
  owners: {ownership: [{name: b}, {name: c, type: DATA_OWNER}]}
  noowners: {ownership: []}
  filters: {row_filters: [{handler: direct_user_match, args: {column: u}}]}
  nofilters: {row_filters: []}
  legacy: {user_filter_column: owner_id}
  nulllegacy: {user_filter_column: null}
  dsnull: {dataspace: null}
  dsempty: {dataspace: {}}
  dsoffer: {dataspace: {expose: true}}
  dswithdraw: {dataspace: {expose: false, consent_required: false}}
  dsconsent: {dataspace: {consent_required: true}}
  dsboth: {expose: false, dataspace: {expose: true, consent_required: true, medallion: gold}}
`)
	rules := map[string]*Rule{"defaults": cfg.Defaults, "zero": {}}
	for _, s := range cfg.Sources {
		rules[s.Key] = s.Rule
	}
	for bn, base := range rules {
		for on, override := range rules {
			m := MergeRules(base, override)
			want := Gates{Expose: m.Expose, Classification: m.Classification, AccessLevel: m.AccessLevel,
				Ownership: m.Ownership(), RowFilters: m.RowFilters(), UserFilterColumn: m.UserFilterColumn(),
				Dataspace: m.Dataspace != nil}
			if m.Dataspace != nil {
				want.DataspaceExposeFlag, want.ConsentRequired = m.Dataspace.Expose, m.Dataspace.ConsentRequired
			}
			got := MergeGates(base, override)
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s over %s (-merged +gates):\n%s", on, bn, diff)
			}
			if got.EffectiveExpose() != EffectiveExpose(m) || got.DataspaceExpose() != DataspaceExpose(m) ||
				got.ExposureConflict() != ExposureConflict(m) {
				t.Errorf("%s over %s: the gates' exposure differs from the merged rule's", on, bn)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { MergeGates(rules["dsboth"], rules["dsconsent"]) }); n != 0 {
		t.Errorf("MergeGates allocates %v times, want 0", n)
	}
}

// TestMergeValues holds the values a ValueMerger merges equal to MergeRules',
// written as a rule body writes them, over every ordered pair of a set of
// blocks stating each kind of field, and over merges of merges (an
// overlaid source over its app's defaults).
func TestMergeValues(t *testing.T) {
	cfg := parseWith(t, NewValues(), "governance.yaml", `
defaults:
  title: Defaults
  expose: true
  license: CC-BY-4.0
  classification: internal
  tags: [b, a]
  ownership: [{name: team-a}]
  dcat: {themes: [ENER], temporal: {start: "2020-01-01"}}
  dataspace: {purpose: [Research], consent_required: true}
sources:
  none: {}
  texts: {title: "A \"quoted\" title", description: "two\nlines"}
  tags: {tags: [c, a]}
  owners: {ownership: [{name: b}, {name: c, type: DATA_OWNER}]}
  noowners: {ownership: []}
  filters: {row_filters: [{handler: direct_user_match, args: {column: u}}]}
  rare: {retention_days: 30, documentation_url: "https://x", source_system: s, attribution: A}
  ontology: {ontology: {spec: m}}
  dcatnull: {dcat: null}
  dcat: {dcat: {spatial_uris: [ITA], temporal: {end: "2021-01-01"}}}
  temporalnull: {dcat: {temporal: null}}
  ds: {dataspace: {expose: true, medallion: gold, purpose: [Billing]}}
  dsnull: {dataspace: null}
  extra: {x-team: {a: 1}, x-other: [1, 2]}
  nulls: {license: null, access_level: null, expose: null}
  nulltexts: {title: null, description: null}
`)
	// A block of another document: a merge taking its description and
	// the title of a block above needs a text block of its own.
	other := parseWith(t, NewValues(), "governance.prod.yaml", `
sources:
  otherdoc: {description: "from another document", dcat: {temporal: {start: "2022-01-01"}}}
`)
	rules := map[string]*Rule{"defaults": cfg.Defaults, "zero": {}, "otherdoc": other.Sources[0].Rule}
	for _, s := range cfg.Sources {
		rules[s.Key] = s.Rule
	}
	write := func(r *Rule) string {
		var buf bytes.Buffer
		r.AppendJSON(&buf)
		return buf.String()
	}
	// One merger for every merge, as a server's pooled one is: nothing of
	// a merge may remain in the next (the order of the pairs is the map's,
	// so each run reuses it in another order).
	var reused ValueMerger
	check := func(what string, base, override *Rule) {
		t.Helper()
		want := write(MergeRules(base, override))
		if got := write(new(ValueMerger).Merge(base, override)); got != want {
			t.Errorf("%s:\n values %s\n rules  %s", what, got, want)
		}
		if got := write(reused.Merge(base, override)); got != want {
			t.Errorf("%s, merger reused:\n values %s\n rules  %s", what, got, want)
		}
		// The texts a reader finds without merging.
		merged := MergeRules(base, override)
		type text struct {
			S  string
			OK bool
		}
		var got, want2 [2]text
		got[0].S, got[0].OK = MergedTitle(base, override)
		got[1].S, got[1].OK = MergedDescription(base, override)
		want2[0].S, want2[0].OK = merged.Title()
		want2[1].S, want2[1].OK = merged.Description()
		if got != want2 {
			t.Errorf("%s: MergedTitle, MergedDescription %v, merged %v", what, got, want2)
		}
	}
	for bn, base := range rules {
		for on, override := range rules {
			check(on+" over "+bn, base, override)
			merged := MergeRules(base, override)
			for tn, top := range rules {
				check(tn+" over ("+on+" over "+bn+")", merged, top)
			}
		}
	}
}

// TestValueMergerAllocatesNothing: a merge of blocks that each state a
// dcat and a dataspace block, and texts from two documents, reuses its
// merger's room.
func TestValueMergerAllocatesNothing(t *testing.T) {
	base := parseWith(t, NewValues(), "governance.yaml", `
defaults:
  title: Defaults
  dcat: {themes: [ENER], temporal: {start: "2020-01-01"}}
  dataspace: {purpose: [Research], consent_required: true}
`).Defaults
	override := parseWith(t, NewValues(), "governance.prod.yaml", `
defaults:
  description: from another document
  dcat: {spatial_uris: [ITA], temporal: {end: "2021-01-01"}}
  dataspace: {expose: true, medallion: gold}
`).Defaults
	var m ValueMerger
	if n := testing.AllocsPerRun(100, func() { m.Merge(base, override) }); n != 0 {
		t.Errorf("a merge allocates %v times", n)
	}
}

// TestFieldNamesNeedNoEscape: the field names rule bodies write without
// escaping (jsonWriter.field) are ones JSON writes as they are.
func TestFieldNamesNeedNoEscape(t *testing.T) {
	for _, keys := range [][]string{fieldKeys[:], dcatKeys[:], dataspaceKeys[:]} {
		for _, k := range keys {
			if got := string(jsonstring.Append(nil, k)); got != `"`+k+`"` {
				t.Errorf("field %q is written %s", k, got)
			}
		}
	}
}
