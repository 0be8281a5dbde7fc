package diff

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/check/checktest"
)

// TestSARIF: the SARIF rendering validates against the SARIF 2.1.0 schema,
// has a result per change the text lists at the head's file and line (the
// base's, said so, for what the head no longer states), every file
// relative to %SRCROOT%, and levels by kind: error for a new error,
// warning for a risky kind or a new warning, note for the rest.
func TestSARIF(t *testing.T) {
	schema := checktest.SARIFSchema(t)
	const m, g = "apps/meters/governance.yaml", "apps/grid/governance.yaml"
	cases := []struct {
		name     string
		head     files
		baseRoot string
		// want are results as "level rule uri:line", each present.
		want []string
		// messages each appear in some result's message.
		messages []string
	}{
		{
			name: "risky and other changes at the head's lines",
			head: riskyHead(t),
			want: []string{
				"warning access-level-lowered apps/meters/governance.yaml:17",
				"note field-changed apps/meters/governance.yaml:17",
				"warning dataspace-offered apps/meters/governance.yaml:39",
				"note dataset-added apps/meters/governance.yaml:34",
				"note field-changed apps/grid/governance.yaml:9",
			},
			messages: []string{
				"meters datasets.meters.raw: access-level-lowered: access_level restricted → internal",
				`grid datasets.grid.lines: title: "Lines" → "Power lines"`,
				"added meters datasets.*",
			},
		},
		{
			name:     "a removed dataset at the base's line, from a git ref's tree",
			head:     baseTree.replace(t, g, "  datasets.grid.substations:\n    title: Substations\n", "  datasets.grid.feeders:\n    title: Feeders\n"),
			baseRoot: "origin/main:",
			want: []string{
				"note dataset-removed apps/grid/governance.yaml:10",
				"note dataset-added apps/grid/governance.yaml:10",
			},
			messages: []string{"removed grid datasets.grid.substations: the head no longer declares it (at the base's origin/main:apps/grid/governance.yaml:10)"},
		},
		{
			name:     "a removed dataset from a checkout beside, placed at the head's root",
			head:     baseTree.replace(t, g, "  datasets.grid.substations:\n    title: Substations\n", ""),
			baseRoot: "../base",
			want:     []string{"note dataset-removed apps/grid/governance.yaml:10"},
			messages: []string{"(at the base's ../base/apps/grid/governance.yaml:10)"},
		},
		{
			name: "a new error and the app it keeps from being compared",
			head: baseTree.replace(t, g, "  access_level: internal\n", "  access_level: everyone\n"),
			want: []string{
				"error new-error apps/grid/governance.yaml:5",
				"warning app-not-compared apps/grid/governance.yaml:1",
			},
			messages: []string{"new error apps/grid/governance.yaml:5:17: schema-violation"},
		},
		{
			name: "a new warning",
			head: baseTree.replace(t, m, "  row_filters: []\n", ""),
			want: []string{"warning new-warning apps/meters/governance.yaml:33"},
		},
		{
			name: "a path a URI must encode",
			head: baseTree.with(g, "", "apps/grid [x]/governance.yaml", baseTree[g]),
			want: []string{"note dataset-removed apps/grid/governance.yaml:8", "note dataset-added apps/grid%20%5Bx%5D/governance.yaml:8"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := compareFiles(t, baseTree, c.head)
			rep.Base.Root = c.baseRoot
			var b bytes.Buffer
			if err := rep.Write(&b, "sarif"); err != nil {
				t.Fatal(err)
			}
			log := checktest.ReadSARIF(t, schema, b.Bytes())
			if len(log.Runs) != 1 {
				t.Fatalf("%d runs", len(log.Runs))
			}
			run := log.Runs[0]
			if d := run.OriginalURIBaseIDs["%SRCROOT%"].Description.Text; d == "" {
				t.Errorf("originalUriBaseIds %v declares no %%SRCROOT%% with a description", run.OriginalURIBaseIDs)
			}
			props := checktest.SARIFProperties[struct {
				Kinds []KindCount `json:"kinds"`
				Page  any         `json:"page"`
			}](t, run.Properties)
			if len(props.Kinds) != len(rep.Kinds) || props.Page != nil {
				t.Errorf("run properties %+v, want the report's kinds and no page", props)
			}
			rules := run.Tool.Driver.Rules
			var got, msgs []string
			for _, r := range run.Results {
				if r.RuleIndex >= len(rules) || rules[r.RuleIndex].ID != r.RuleID {
					t.Errorf("%s: rule index %d does not name it", r.RuleID, r.RuleIndex)
				} else if rules[r.RuleIndex].DefaultConfiguration.Level != r.Level {
					t.Errorf("%s: level %s, its rule's %s", r.RuleID, r.Level, rules[r.RuleIndex].DefaultConfiguration.Level)
				}
				if k := Kind(r.RuleID); slices.Contains(Kinds, k) && r.Level != sarifLevel(k) {
					t.Errorf("%s: level %s", r.RuleID, r.Level)
				}
				if len(r.Locations) != 1 {
					t.Fatalf("%s: %d locations", r.RuleID, len(r.Locations))
				}
				loc := r.Locations[0].PhysicalLocation
				if loc.ArtifactLocation.URIBaseID != "%SRCROOT%" || strings.ContainsAny(loc.ArtifactLocation.URI, ": []") || loc.Region.StartLine < 1 {
					t.Errorf("%s: location %+v, want a relative URI under %%SRCROOT%% with a start line", r.RuleID, loc)
				}
				side := checktest.SARIFProperties[struct {
					Side string `json:"side"`
				}](t, r.Properties).Side
				if base := strings.Contains(r.Message.Text, "(at the base's "); base != (side == "base") {
					t.Errorf("%s: %q on the %s side", r.RuleID, r.Message.Text, side)
				}
				got = append(got, fmt.Sprintf("%s %s %s:%d", r.Level, r.RuleID, loc.ArtifactLocation.URI, loc.Region.StartLine))
				msgs = append(msgs, r.Message.Text)
			}
			for _, w := range c.want {
				if !slices.Contains(got, w) {
					t.Errorf("no result %q in\n%s", w, strings.Join(got, "\n"))
				}
			}
			for _, w := range c.messages {
				if !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, w) }) {
					t.Errorf("no message holds %q:\n%s", w, strings.Join(msgs, "\n"))
				}
			}
			if n := len(got); n == 0 {
				t.Error("no result")
			}
		})
	}
}

// TestSARIFOfNoChange: a log with no result is still a log.
func TestSARIFOfNoChange(t *testing.T) {
	s := render(t, compareFiles(t, baseTree, baseTree), "sarif")
	if !strings.Contains(s, `"results": []`) || !strings.Contains(s, `"version": "2.1.0"`) {
		t.Errorf("the log of no change:\n%s", s)
	}
}
