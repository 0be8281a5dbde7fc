package api

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/check/checktest"
	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testfs"
)

// servedSARIF validates a SARIF log from the server against the SARIF
// 2.1.0 schema and GitHub code scanning's requirements (a physical location
// with a relative uri, its uriBaseId declared, a start line), and returns
// where each result is: base id and uri.
func servedSARIF(t *testing.T, schema *jsonschema.Schema, body []byte) []string {
	t.Helper()
	log := checktest.ReadSARIF(t, schema, body)
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs", len(log.Runs))
	}
	run := log.Runs[0]
	if _, ok := run.OriginalURIBaseIDs["%SRCROOT%"]; !ok {
		t.Errorf("originalUriBaseIds %v declares no %%SRCROOT%%", run.OriginalURIBaseIDs)
	}
	var where []string
	for _, r := range run.Results {
		if len(r.Locations) != 1 {
			t.Fatalf("%s: %d locations", r.RuleID, len(r.Locations))
		}
		loc := r.Locations[0].PhysicalLocation
		a := loc.ArtifactLocation
		if a.URI == "" || strings.HasPrefix(a.URI, "/") || strings.Contains(a.URI, ":") || loc.Region.StartLine < 1 {
			t.Errorf("%s: location %+v: GitHub places a relative uri with a start line", r.RuleID, loc)
		}
		if d, ok := run.OriginalURIBaseIDs[a.URIBaseID]; !ok || d.Description.Text == "" {
			t.Errorf("%s: uriBaseId %q is not declared with a description", r.RuleID, a.URIBaseID)
		}
		where = append(where, a.URIBaseID+" "+a.URI)
	}
	return where
}

// TestServedSARIF: GET /report?format=sarif and POST /validate?format=sarif
// validate against the SARIF 2.1.0 schema, and place every file of the
// tree relative to %SRCROOT% (the repository the tree is a checkout of)
// so that code scanning finds it; a file read outside the tree is placed
// under a base of its own.
func TestServedSARIF(t *testing.T) {
	schema := checktest.SARIFSchema(t)
	disk, in := syncLikeTree(t)
	// A warning in the tree, another in the owners file outside it.
	wt := disk + "/srv/governance/.worktrees/4f2a9c1e"
	testfs.Write(t, wt, map[string]string{"apps/weather/governance.yaml": "defaults: {row_filters: []}\nsources:\n  datasets.w: {expose: true, access_level: secret}\n"})
	testfs.Append(t, disk, "etc/governanced/owners.yaml", "  - id: open-data\n    type: schema:Organization\n    name: Twice\n    url: https://twice.example\n")
	store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: in})
	h, _ := newServer(Deps{Store: store})

	r := do(t, h, "GET", "/report?format=sarif", nil)
	if r.status != 200 || r.header.Get("Content-Type") != "application/sarif+json" {
		t.Fatalf("%d %s", r.status, r.header.Get("Content-Type"))
	}
	where := servedSARIF(t, schema, r.body)
	for _, want := range []string{"%SRCROOT% apps/weather/governance.yaml", "GOVERNANCED_INPUTS owners.yaml"} {
		found := false
		for _, w := range where {
			found = found || w == want
		}
		if !found {
			t.Errorf("no result at %q: %v", want, where)
		}
	}

	upload := uploadOf(t, map[string]string{"apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true, access_level: secret}\n"})
	v := do(t, h, "POST", "/validate?format=sarif", bytes.NewReader(upload), "Content-Type", "application/x-tar")
	if v.status != 200 {
		t.Fatalf("POST /validate: %d %s", v.status, v.body)
	}
	if where := servedSARIF(t, schema, v.body); len(where) == 0 || where[0] != "%SRCROOT% apps/a/governance.yaml" {
		t.Errorf("POST /validate's results at %v, want apps/a/governance.yaml relative to %%SRCROOT%%", where)
	}
}

// TestValidateTakesTheCheckOptions: POST /validate takes the CLI's check
// options (cli.CheckFlags) under their snake_case names; the report echoes
// what the check was asked, and the server's own options play no part.
func TestValidateTakesTheCheckOptions(t *testing.T) {
	h, _ := testServer(t)
	tree := uploadOf(t, map[string]string{
		"apps/a/governance.yaml":            "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n",
		"apps/a/governance.a.yaml":          "defaults: {access_level: internal}\n",
		"apps/a/governance.deploy.yaml":     "defaults: {access_level: restricted}\n",
		"deploy/overlays/governance.a.yaml": "defaults: {}\n",
		"owners.yaml":                       "owners:\n  - {id: acme, type: schema:Organization, name: Acme, url: https://acme.example}\n",
		"placeholders.yaml":                 "operator: acme\n",
	})
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		query string
		want  func(r *check.Report)
	}{
		{"", func(r *check.Report) {}},
		{"strict=true", func(r *check.Report) { r.Strict = true }},
		{"overlay_name=deploy", func(r *check.Report) { r.Inputs.OverlayName = s("deploy") }},
		{"overlay_dir=deploy/overlays&infer_from_dir=false", func(r *check.Report) {
			r.Inputs.OverlayDir, r.Inputs.InferFromDir = s("deploy/overlays"), false
		}},
		{"infer_from_dir=false", func(r *check.Report) { r.Inputs.InferFromDir = false }},
		{"owners=owners.yaml&placeholders=placeholders.yaml&dataspace=true", func(r *check.Report) {
			r.Inputs.Owners, r.Inputs.Placeholders, r.Inputs.Dataspace = []string{"owners.yaml"}, s("placeholders.yaml"), true
		}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			r := do(t, h, "POST", "/validate?"+tc.query, bytes.NewReader(tree), "Content-Type", "application/x-tar")
			if r.status != 200 {
				t.Fatalf("%d %s", r.status, r.body)
			}
			var got check.Report
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatal(err)
			}
			want := check.Report{Inputs: check.Inputs{Paths: []string{"apps/*"}, Owners: []string{}, InferFromDir: true}}
			tc.want(&want)
			// What the check was asked, not what it found.
			echo := cmpopts.IgnoreFields(check.Report{}, "ReportVersion", "OK", "ExitCode", "Summary", "Findings")
			if d := cmp.Diff(want, got, echo); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	for _, bad := range []string{"infer_from_dir=perhaps", "dataspace=true", "overlay_name=../x", "placeholders=p.yaml"} {
		if r := do(t, h, "POST", "/validate?"+bad, bytes.NewReader(tree), "Content-Type", "application/x-tar"); r.status != 400 {
			t.Errorf("%s: %d, want 400 (validate's usage error)", bad, r.status)
		}
	}
}
