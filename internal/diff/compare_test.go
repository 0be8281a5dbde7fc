package diff

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const metersYAML = `# The metering app.
defaults:
  license: CC-BY-4.0
  ownership:
    - name: rec
      type: DATA_OWNER
  access_level: internal
  classification: yellow
  row_filters: []
  dataspace:
    odrl_action: use
    purpose: [EnergyCommunityOperation]

sources:
  # Raw readings: the community's own.
  datasets.meters.raw:
    access_level: restricted
    classification: red
    row_filters:
      - handler: rec_registry
        args:
          column: device_id
  datasets.meters.daily:
    expose: true
    row_filters:
      - handler: rec_registry
        args: {column: device_id}
    dataspace:
      expose: true
      consent_required: true
      contract_required: true
  datasets.meters.legacy:
    user_filter_column: user_id
  datasets.public_*:
    expose: true
    access_level: open
    classification: green
    dataspace:
      expose: true
`

const gridYAML = `defaults:
  ownership:
    - name: dso
      type: DATA_OWNER
  access_level: internal
  row_filters: []
sources:
  datasets.grid.lines:
    title: Lines
  datasets.grid.substations:
    title: Substations
`

const ownersYAML = `owners:
  - id: example_rec
    type: schema:NGO
    name: Example REC
    url: https://example.com
    aliases: [rec]
  - id: example_dso
    type: schema:Corporation
    name: Example DSO
    url: https://example.org
    aliases: [dso]
  - id: other_rec
    type: schema:NGO
    name: Another REC
    url: https://example.net
`

var baseTree = files{
	"apps/meters/governance.yaml": metersYAML,
	"apps/grid/governance.yaml":   gridYAML,
	"owners.yaml":                 ownersYAML,
}

// line is a dataset change as the table states it: status, app, key and
// kinds.
func line(d DatasetChange) string {
	kinds := make([]string, len(d.Kinds))
	for i, k := range d.Kinds {
		kinds[i] = string(k)
	}
	return fmt.Sprintf("%s %s %s [%s]", d.Status, d.App, d.Dataset, strings.Join(kinds, " "))
}

func lines(r *Report) []string {
	out := []string{}
	for _, d := range r.Datasets {
		out = append(out, line(d))
	}
	for _, a := range r.Apps {
		out = append(out, fmt.Sprintf("app %s %s%s", a.Status, a.App, map[bool]string{true: " (" + a.Unresolved + ")"}[a.Unresolved != ""]))
	}
	for _, f := range r.Findings.Added {
		out = append(out, fmt.Sprintf("new %s %s", f.Severity, f.Code))
	}
	for _, f := range r.Findings.Resolved {
		out = append(out, fmt.Sprintf("resolved %s %s", f.Severity, f.Code))
	}
	return out
}

// TestCompare holds each change kind to a pair of small trees.
func TestCompare(t *testing.T) {
	const m = "apps/meters/governance.yaml"
	overlay := "apps/meters/governance.meters.yaml"
	cases := []struct {
		name string
		head files
		base files // baseTree when nil
		want []string
	}{
		{name: "the same tree", head: baseTree, want: []string{}},
		{
			name: "reformatting: comments, key order, flow style, anchors",
			head: baseTree.with(m, `defaults:
  classification: yellow   # reordered
  access_level: internal
  row_filters: []
  license: CC-BY-4.0
  dataspace: {purpose: [EnergyCommunityOperation], odrl_action: use}
  ownership: [{type: DATA_OWNER, name: rec}]
sources:
  datasets.meters.daily:
    dataspace: {contract_required: true, expose: true, consent_required: true}
    row_filters: &rf
      - args: {column: device_id}
        handler: rec_registry
    expose: true
  datasets.meters.raw:
    classification: red
    access_level: restricted
    row_filters: *rf
  datasets.meters.legacy: {user_filter_column: user_id}
  datasets.public_*:
    <<: {expose: true, access_level: open}
    classification: green
    dataspace: {expose: true}
`),
			want: []string{},
		},
		{
			name: "catalogue-exposed and dataspace-offered by a glob's rule",
			head: baseTree.replace(t, "apps/grid/governance.yaml", "sources:\n", "sources:\n  datasets.grid.open_*:\n    expose: true\n    dataspace: {expose: true}\n").
				replace(t, "apps/grid/governance.yaml", "", ""),
			base: baseTree.replace(t, "apps/grid/governance.yaml", "sources:\n", "sources:\n  datasets.grid.open_*:\n    expose: false\n"),
			want: []string{"changed grid datasets.grid.open_* [field-changed catalogue-exposed dataspace-offered]"},
		},
		{
			// The glob's text resolves through the new, wider glob to the
			// same rule: only the pattern changed for it. The new glob is
			// what newly offers datasets.
			name: "a glob edit that newly offers datasets",
			head: baseTree.replace(t, m, "datasets.public_*:", "datasets.*:"),
			want: []string{"added meters datasets.* [dataset-added catalogue-exposed dataspace-offered]"},
		},
		{
			name: "catalogue-withdrawn and dataspace-withdrawn",
			head: baseTree.replace(t, m, "  datasets.meters.daily:\n    expose: true\n", "  datasets.meters.daily:\n    expose: false\n").
				replace(t, m, "      expose: true\n      consent_required", "      expose: false\n      consent_required"),
			want: []string{"changed meters datasets.meters.daily [field-changed catalogue-withdrawn dataspace-withdrawn]"},
		},
		{
			name: "row-policy-removed by an overlay edit",
			base: baseTree.with("apps/grid/governance.grid.yaml", "sources:\n  datasets.grid.lines:\n    row_filters: [{handler: direct_user_match, args: {column: user_id}}]\n"),
			head: baseTree.with("apps/grid/governance.grid.yaml", "sources:\n  datasets.grid.lines:\n    title: Lines\n"),
			want: []string{"changed grid datasets.grid.lines [field-changed row-policy-removed]"},
		},
		{
			name: "row-policy-changed by an overlay edit: back to the legacy column",
			base: baseTree.with(overlay, "sources:\n  datasets.meters.legacy:\n    row_filters:\n      - handler: direct_user_match\n        args: {column: user_id}\n"),
			head: baseTree.with(overlay, "sources:\n  datasets.meters.legacy:\n    title: Legacy\n"),
			want: []string{"changed meters datasets.meters.legacy [field-changed row-policy-changed]"},
		},
		{
			name: "row-policy-removed: an overlay nulls the legacy column",
			head: baseTree.with(overlay, "sources:\n  datasets.meters.legacy:\n    user_filter_column: null\n"),
			want: []string{"changed meters datasets.meters.legacy [field-changed row-policy-removed]"},
		},
		{
			name: "row-policy-added",
			head: baseTree.replace(t, "apps/grid/governance.yaml", "    title: Lines\n", "    title: Lines\n    row_filters: [{handler: direct_user_match, args: {column: user_id}}]\n"),
			want: []string{"changed grid datasets.grid.lines [field-changed row-policy-added]"},
		},
		{
			name: "row-policy-changed",
			head: baseTree.replace(t, m, "          column: device_id", "          column: meter_id"),
			want: []string{"changed meters datasets.meters.raw [field-changed row-policy-changed]"},
		},
		{
			name: "access-level-lowered, classification-lowered",
			head: baseTree.replace(t, m, "    access_level: restricted\n    classification: red\n", "    access_level: internal\n    classification: green\n"),
			want: []string{"changed meters datasets.meters.raw [field-changed access-level-lowered classification-lowered]"},
		},
		{
			name: "access-level-raised, classification-raised",
			head: baseTree.replace(t, m, "    access_level: open\n    classification: green\n", "    access_level: internal\n    classification: pii\n"),
			want: []string{"changed meters datasets.public_* [field-changed access-level-raised classification-raised]"},
		},
		{
			name: "secret is restricted: a field change, not a level change",
			head: baseTree.replace(t, m, "    access_level: restricted\n", "    access_level: secret\n"),
			want: []string{"changed meters datasets.meters.raw [field-changed]", "new warning access-level-secret"},
		},
		{
			// No governance file changes: the alias rec now names another
			// owner, so every meters dataset resolves to it.
			name: "an owners.yaml edit changes the resolved owner of datasets that never mention it",
			head: baseTree.replace(t, "owners.yaml", "    aliases: [rec]\n", "").
				replace(t, "owners.yaml", "    url: https://example.net\n", "    url: https://example.net\n    aliases: [rec]\n"),
			want: []string{
				"changed meters datasets.meters.daily [field-changed owner-changed]",
				"changed meters datasets.meters.legacy [field-changed owner-changed]",
				"changed meters datasets.meters.raw [field-changed owner-changed]",
				"changed meters datasets.public_* [field-changed owner-changed]",
			},
		},
		{
			name: "licence-changed in the defaults: every dataset inheriting it",
			head: baseTree.replace(t, m, "  license: CC-BY-4.0\n", "  license: ODbL-1.0\n").
				replace(t, m, "  datasets.meters.legacy:\n", "  datasets.meters.legacy:\n    license: CC-BY-4.0\n"),
			want: []string{
				"changed meters datasets.meters.daily [field-changed licence-changed]",
				"changed meters datasets.meters.raw [field-changed licence-changed]",
				"changed meters datasets.public_* [field-changed licence-changed]",
			},
		},
		{
			name: "consent-dropped, contract-dropped",
			head: baseTree.replace(t, m, "      consent_required: true\n      contract_required: true\n", "      consent_required: false\n"),
			want: []string{"changed meters datasets.meters.daily [field-changed consent-dropped contract-dropped]"},
		},
		{
			name: "dataset-added and dataset-removed",
			head: baseTree.replace(t, "apps/grid/governance.yaml", "  datasets.grid.substations:\n    title: Substations\n", "  datasets.grid.feeders:\n    title: Feeders\n"),
			want: []string{"added grid datasets.grid.feeders [dataset-added]", "removed grid datasets.grid.substations [dataset-removed]"},
		},
		{
			name: "an app added and one removed",
			head: baseTree.with("apps/grid/governance.yaml", "", "apps/pv/governance.yaml", "defaults: {}\nsources:\n  datasets.pv.panels:\n    expose: true\n    row_filters: []\n"),
			want: []string{
				"removed grid datasets.grid.lines [dataset-removed]",
				"removed grid datasets.grid.substations [dataset-removed]",
				"added pv datasets.pv.panels [dataset-added catalogue-exposed]",
				"app removed grid",
				"app added pv",
			},
		},
		{
			name: "a removed listed dataset is withdrawn",
			head: baseTree.replace(t, m, "  datasets.meters.daily:\n    expose: true\n", "  datasets.meters.gone:\n    expose: true\n").
				with("apps/grid/governance.yaml", gridYAML),
			want: []string{
				"removed meters datasets.meters.daily [dataset-removed catalogue-withdrawn dataspace-withdrawn]",
				"added meters datasets.meters.gone [dataset-added catalogue-exposed dataspace-offered]",
			},
		},
		{
			// A literal key now declared where a glob covered its name:
			// compared with the glob's rule, and no change when it is the
			// same rule.
			name: "a name newly declared over the glob that covered it",
			head: baseTree.replace(t, m, "  datasets.public_*:\n", "  datasets.public_same:\n    expose: true\n    access_level: open\n    classification: green\n    dataspace:\n      expose: true\n  datasets.public_closed:\n    expose: false\n  datasets.public_*:\n"),
			want: []string{"changed meters datasets.public_closed [field-changed catalogue-withdrawn dataspace-withdrawn access-level-raised classification-raised]"},
		},
		{
			name: "new-warning: a dataset with no row policy",
			head: baseTree.replace(t, m, "  row_filters: []\n", ""),
			want: []string{
				"changed meters datasets.meters.legacy [field-changed]",
				"changed meters datasets.public_* [field-changed]",
				"new warning row-policy-undeclared",
			},
		},
		{
			name: "new-error: an app that does not materialise is not compared",
			head: baseTree.replace(t, "apps/grid/governance.yaml", "  access_level: internal\n", "  access_level: everyone\n"),
			want: []string{"app unresolved grid (head)", "new error schema-violation"},
		},
		{
			name: "owners registry gone: names stay as written",
			head: baseTree.with("owners.yaml", ""),
			want: []string{
				"changed grid datasets.grid.lines [field-changed owner-changed]",
				"changed grid datasets.grid.substations [field-changed owner-changed]",
				"changed meters datasets.meters.daily [field-changed owner-changed]",
				"changed meters datasets.meters.legacy [field-changed owner-changed]",
				"changed meters datasets.meters.raw [field-changed owner-changed]",
				"changed meters datasets.public_* [field-changed owner-changed]",
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := c.base
			if base == nil {
				base = baseTree
			}
			rep := compareFiles(t, base, c.head)
			if d := cmp.Diff(c.want, lines(rep)); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
		})
	}
}

func TestCompareRefusesAnAppHeldTwice(t *testing.T) {
	tree := checkTree(t, baseTree)
	tree.Apps = append(tree.Apps, tree.Apps[0])
	if _, err := Compare(context.Background(), checkTree(t, baseTree), tree); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("err = %v, want one naming the app held twice", err)
	}
}
