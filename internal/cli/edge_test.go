package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/check/checktest"
	"github.com/celine-eu/governanced/internal/testfs"
)

const okBase = `defaults: {}
sources:
  datasets.gold.x:
    expose: true
    row_filters: []
`

const ownersOK = `owners:
  - id: example-dso
    type: schema:Corporation
    name: Example DSO
    aliases: [dso]
  - id: example-rec
    type: schema:NGO
    name: Example REC
    did: did:web:rec.example
    aliases: [rec]
`

// TestEdgeCases covers rules of check.md that the worked cases of §12 do not
// reach: duplicate keys in nested and aliased mappings, nested blocks, the
// registry inputs, pairing corner cases and path expansion.
func TestEdgeCases(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   map[string]string
		symlink [2]string // optional: link name → target, relative to the tree
		args    []string
		want    []string
		exit    int
	}{
		{
			name:  "the apps directory named as a tree",
			files: map[string]string{"apps/a/governance.yaml": okBase, "apps/b/governance.yaml": okBase, "apps/notes/README.md": "x"},
			args:  []string{"apps"},
			want:  []string{"info no-governance-in-dir apps/notes - - - -"},
		},
		{
			name:  "a tree root named as a tree",
			files: map[string]string{"apps/a/governance.yaml": okBase, "apps/b/governance.yaml": okBase},
			args:  []string{"."},
		},
		{
			name:  "a directory holding neither governance.yaml nor apps",
			files: map[string]string{"docs/README.md": "x"},
			args:  []string{"docs"},
			want:  []string{"error path-no-match docs - - - -"},
			exit:  1,
		},
		{
			name: "duplicate key inside a source block",
			files: map[string]string{"apps/a/governance.yaml": `defaults: {}
sources:
  datasets.gold.x:
    expose: true
    row_filters: []
    expose: false
`},
			args: []string{"apps/*"},
			want: []string{
				"error duplicate-key apps/a/governance.yaml 6:5 /sources/datasets.gold.x/expose datasets.gold.x expose",
				"info semantic-skipped apps/a/governance.yaml - - - -",
			},
			exit: 1,
		},
		{
			name: "duplicate key in an anchored mapping is reported once, where it is defined",
			files: map[string]string{"apps/a/governance.yaml": `defaults: {}
sources:
  datasets.gold.x: &blk
    row_filters: []
    row_filters: []
  datasets.gold.y:
    <<: *blk
    expose: false
`},
			args: []string{"apps/*"},
			want: []string{
				"error duplicate-key apps/a/governance.yaml 5:5 /sources/datasets.gold.x/row_filters datasets.gold.x row_filters",
				"info semantic-skipped apps/a/governance.yaml - - - -",
			},
			exit: 1,
		},
		{
			name: "nested block: content validated and key-checked, siblings ignored, null is empty",
			files: map[string]string{"apps/a/governance.yaml": `defaults:
  governance: null
sources:
  datasets.gold.x:
    title: ignored
    governance:
      expose: maybe
      governance: {}
`},
			args: []string{"apps/*"},
			want: []string{
				"warning ignored-key apps/a/governance.yaml 5:5 /sources/datasets.gold.x/title datasets.gold.x title",
				"error schema-violation apps/a/governance.yaml 7:15 /sources/datasets.gold.x/governance/expose datasets.gold.x type",
				"warning unknown-key apps/a/governance.yaml 8:7 /sources/datasets.gold.x/governance/governance datasets.gold.x governance",
				"info semantic-skipped apps/a/governance.yaml - - - -",
			},
			exit: 1,
		},
		{
			name: "nested block served: rules read the inner block and locate inside it",
			files: map[string]string{"apps/a/governance.yaml": `defaults: {}
sources:
  datasets.gold.x:
    governance:
      expose: true
      row_filters:
        - handler: direct_user_matc
`},
			args: []string{"apps/*"},
			want: []string{
				"error row-filter-unknown-handler apps/a/governance.yaml 7:20 /sources/datasets.gold.x/governance/row_filters/0/handler datasets.gold.x direct_user_matc",
			},
			exit: 1,
		},
		{
			name:  "the same owners file twice shadows nothing and repeats nothing",
			files: map[string]string{"apps/a/governance.yaml": okBase, "owners.yaml": ownersOK + "  - id: example-rec\n    type: schema:NGO\n    name: again\n"},
			args:  []string{"apps/*", "--owners", "owners.yaml", "--owners", "./owners.yaml"},
			want:  []string{"warning owners-duplicate-id owners.yaml 11:9 /owners/2/id - example-rec"},
		},
		{
			name:  "a placeholder map entry that is not a string stops the registry",
			files: map[string]string{"apps/a/governance.yaml": okBase, "owners.yaml": ownersOK, "ph.yaml": "operator: example-dso\n1: x\ncommunity: [a]\n"},
			args:  []string{"apps/*", "--owners", "owners.yaml", "--placeholders", "ph.yaml"},
			want: []string{
				"info owners-not-loaded - - - - -",
				"error placeholders-invalid ph.yaml 2:1 /1 - 1",
				"error placeholders-invalid ph.yaml 3:1 /community - community",
			},
			exit: 1,
		},
		{
			name:  "a missing placeholder map",
			files: map[string]string{"apps/a/governance.yaml": okBase, "owners.yaml": ownersOK},
			args:  []string{"apps/*", "--owners", "owners.yaml", "--placeholders", "nope.yaml"},
			want: []string{
				"info owners-not-loaded - - - - -",
				"error placeholders-invalid nope.yaml - - - -",
			},
			exit: 1,
		},
		{
			name:  "a duplicate YAML key in an owners file stops the registry",
			files: map[string]string{"apps/a/governance.yaml": okBase, "owners.yaml": "owners:\n  - id: a\n    type: schema:NGO\n    name: A\n    name: B\n"},
			args:  []string{"apps/*", "--owners", "owners.yaml"},
			want: []string{
				"info owners-not-loaded - - - - -",
				"error duplicate-key owners.yaml 5:5 /owners/0/name - name",
			},
			exit: 1,
		},
		{
			name: "the overlay directory is the base's directory: one candidate",
			files: map[string]string{
				"apps/grid/governance.yaml":      okBase,
				"apps/grid/governance.grid.yaml": "defaults: {access_level: restricted}\n",
			},
			args: []string{"apps/grid", "--overlay-dir", "apps/grid/"},
		},
		{
			name: "an overlay-directory overlay serves every base of its app",
			files: map[string]string{
				"apps/grid/governance.yaml":           okBase,
				"checkout/apps/grid/governance.yaml":  okBase,
				"deploy/governance.grid.yaml":         "sources:\n  datasets.gold.x:\n    expose: false\n    dataspace: {expose: true}\n",
				"checkout/apps/other/governance.yaml": okBase,
			},
			args: []string{"apps/*", "checkout/apps/*", "--overlay-dir", "deploy"},
			want: []string{
				"info owners-not-checked - - - - -",
				"error exposure-conflict apps/grid/governance.yaml 3:3 /sources/datasets.gold.x datasets.gold.x -",
				"error exposure-conflict checkout/apps/grid/governance.yaml 3:3 /sources/datasets.gold.x datasets.gold.x -",
			},
			exit: 1,
		},
		{
			name: "** reaches nested bases but not hidden directories",
			files: map[string]string{
				"tree/apps/a/governance.yaml":       okBase,
				"tree/b/c/d/governance.yaml":        okBase,
				"tree/.git/x/governance.yaml":       "not: [valid",
				"tree/apps/.hidden/governance.yaml": "not: [valid",
			},
			args: []string{"tree/**/governance.yaml"},
		},
		{
			name: "a literal file of another name is a base; a literal directory without one matches nothing",
			files: map[string]string{
				"gov.yml":      okBase,
				"empty/README": "x",
			},
			args: []string{"gov.yml", "empty"},
			want: []string{"error path-no-match empty - - - -"},
			exit: 1,
		},
		{
			name:  "a glob matching only directories without a base",
			files: map[string]string{"apps/a/README": "x", "apps/b/README": "x"},
			args:  []string{"apps/*"},
			want: []string{
				"error path-no-match apps/* - - - -",
				"info no-governance-in-dir apps/a - - - -",
				"info no-governance-in-dir apps/b - - - -",
			},
			exit: 1,
		},
		{
			name:    "a symlinked spelling of a base is the same base",
			files:   map[string]string{"apps/grid/governance.yaml": okBase},
			symlink: [2]string{"link", "apps/grid"},
			args:    []string{"apps/grid", "link"},
		},
		{
			name: "identical consent findings collapse; organization_match args are open",
			files: map[string]string{"apps/a/governance.yaml": `defaults: {}
sources:
  datasets.gold.x:
    expose: true
    dataspace: {expose: true, consent_required: true}
    row_filters:
      - handler: http_in_list
        args: {column: c, url: u, method: Post}
      - handler: http_in_list
        args: {column: c, url: u, method: false}
      - handler: organization_match
        args: {org_type: dso, anything: 1}
      - handler: table_pointer
        args: {column: c, pointer_table: ""}
`},
			args: []string{"apps/*"},
			want: []string{
				"info owners-not-checked - - - - -",
				"error consent-without-subject-filter apps/a/governance.yaml 3:3 /sources/datasets.gold.x datasets.gold.x -",
				"warning consent-filter-not-delegable apps/a/governance.yaml 3:3 /sources/datasets.gold.x datasets.gold.x http_in_list",
				"warning consent-filter-not-delegable apps/a/governance.yaml 3:3 /sources/datasets.gold.x datasets.gold.x table_pointer",
				"error row-filter-missing-arg apps/a/governance.yaml 13:9 /sources/datasets.gold.x/row_filters/3 datasets.gold.x pointer_key_column",
				"error row-filter-missing-arg apps/a/governance.yaml 13:9 /sources/datasets.gold.x/row_filters/3 datasets.gold.x pointer_table",
			},
			exit: 1,
		},
		{
			name: "a DID is required once per resolved owner",
			files: map[string]string{
				"owners.yaml": ownersOK,
				"apps/a/governance.yaml": `defaults: {}
sources:
  datasets.gold.x:
    expose: true
    ownership: [{name: dso, type: DATA_OWNER}, {name: example-dso, type: DATA_OWNER}, {name: rec, type: DATA_OWNER}]
    dataspace: {expose: true}
    row_filters: [{handler: organization_match, args: {org_type: dso}}]
`},
			args: []string{"apps/*", "--owners", "owners.yaml", "--dataspace"},
			want: []string{"error owner-did-missing apps/a/governance.yaml 3:3 /sources/datasets.gold.x datasets.gold.x example-dso"},
			exit: 1,
		},
		{
			name: "a filter supplied by the overlay's defaults is located in the overlay",
			files: map[string]string{
				"apps/grid/governance.yaml":      okBase,
				"apps/grid/governance.grid.yaml": "defaults:\n  row_filters:\n    - handler: rec_registry\n      args: {column: d, urll: x}\n",
			},
			args: []string{"apps/grid"},
			want: []string{"warning row-filter-unknown-arg apps/grid/governance.grid.yaml 4:25 /defaults/row_filters/0/args/urll - urll"},
		},
		{
			name:  "an --overlay-dir given empty is the working directory",
			files: map[string]string{"apps/grid/governance.yaml": okBase, "governance.grid.yaml": "defaults: {expose: false}\n"},
			args:  []string{"apps/grid", "--overlay-dir", ""},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testfs.Tree(t, tc.files)
			if tc.symlink[0] != "" {
				if err := os.Symlink(filepath.Join(dir, tc.symlink[1]), filepath.Join(dir, tc.symlink[0])); err != nil {
					t.Skip("no symlinks here:", err)
				}
			}
			inv, err := parseValidate(tc.args, &Env{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := check.Run(context.Background(), inv.opts)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, checktest.Briefs(rep)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if rep.ExitCode != tc.exit {
				t.Errorf("exit %d, want %d", rep.ExitCode, tc.exit)
			}
		})
	}
}
