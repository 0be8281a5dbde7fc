package governance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
