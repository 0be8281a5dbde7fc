package snapshot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/testfs"
	"github.com/celine-eu/governanced/internal/treegen"
)

// copyReal copies the 17 reference apps into a temporary tree.
func copyReal(t testing.TB) string {
	t.Helper()
	paths := testcorpus.ReferenceApps(t)
	files := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files["apps/"+filepath.Base(filepath.Dir(p))+"/governance.yaml"] = string(b)
	}
	return testfs.Tree(t, files)
}

type conformanceCase struct {
	ID        string          `json:"id"`
	Operation string          `json:"operation"`
	Args      map[string]any  `json:"args"`
	Inputs    map[string]any  `json:"inputs"`
	Expected  json.RawMessage `json:"expected"`
}

// realResolveCases are the resolve cases of the real files: app → cases.
func realResolveCases(t testing.TB) map[string][]conformanceCase {
	t.Helper()
	paths := testcorpus.Glob(t, testcorpus.Path(t, "conformance"), "real-*.json", 18)
	out := map[string][]conformanceCase{}
	for _, p := range paths {
		var f struct {
			Cases []conformanceCase `json:"cases"`
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		app := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "real-"), ".json")
		for _, c := range f.Cases {
			if c.Operation == "resolve" {
				out[app] = append(out[app], c)
			}
		}
	}
	return out
}

func TestBuildRealTreeMatchesConformance(t *testing.T) {
	dir := copyReal(t)
	l := &Loader{Inputs: Inputs{Trees: []string{dir}}}
	s, err := l.Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.Counts.Apps != 17 || s.Counts.Sources != 174 {
		t.Fatalf("counts = %+v, want 17 apps and 174 sources", s.Counts)
	}
	cases := realResolveCases(t)
	if len(cases) == 0 {
		t.Skip("no conformance cases")
	}
	for app, cs := range cases {
		for _, c := range cs {
			name := c.Args["dataset"].(string)
			d, err := s.ResolveIn(app, name)
			if err != nil {
				t.Fatalf("%s: %v", c.ID, err)
			}
			var buf bytes.Buffer
			d.Rule().AppendJSON(&buf)
			var rule, match any
			var want map[string]any
			if err := json.Unmarshal(buf.Bytes(), &rule); err != nil {
				t.Fatalf("%s: %v\n%s", c.ID, err, buf.Bytes())
			}
			if err := json.Unmarshal(d.MatchFor(name).AppendJSON(nil), &match); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(c.Expected, &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want["rule"], rule); diff != "" {
				t.Errorf("%s: rule (-want +got):\n%s", c.ID, diff)
			}
			if diff := cmp.Diff(want["match"], match); diff != "" {
				t.Errorf("%s: match (-want +got):\n%s", c.ID, diff)
			}
		}
	}
}

const baseYAML = `defaults:
  access_level: internal
  ownership:
    - name: rec
      type: DATA_OWNER
  dataspace:
    odrl_action: use
    purpose: [Research]
sources:
  datasets.gold.meters:
    expose: true
    row_filters:
      - handler: rec_registry
        args: {column: device_id}
    dcat:
      temporal:
        start: "2024-01-01"
  datasets.gold.*:
    expose: true
    row_filters: []
`

const overlayYAML = `defaults:
  classification: green
sources:
  datasets.gold.meters:
    access_level: restricted
    dataspace:
      expose: false
      purpose: [Operations]
`

func TestResolveGlobal(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"apps/meters/governance.yaml":        baseYAML,
		"apps/meters/governance.meters.yaml": overlayYAML,
		"apps/twin/governance.yaml": `defaults: {}
sources:
  datasets.gold.meters: {expose: false}
  datasets.silver.*: {row_filters: []}
  datasets.other.x*: {row_filters: []}
`,
		"apps/third/governance.yaml": `defaults: {}
sources:
  datasets.silver.*: {row_filters: []}
  datasets.other.*: {row_filters: []}
`,
	})
	s, err := (&Loader{Inputs: Inputs{Trees: []string{dir}}}).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		app     string
		pattern string
		err     error
		apps    []string
	}{
		{name: "datasets.gold.meters", err: &AmbiguousError{}, apps: []string{"meters", "twin"}},
		{name: "datasets.gold.other", app: "meters", pattern: "datasets.gold.*"},
		{name: "datasets.silver.x", err: &AmbiguousError{}, apps: []string{"third", "twin"}},
		{name: "datasets.other.xy", app: "twin", pattern: "datasets.other.x*"},
		{name: "datasets.other.y", app: "third", pattern: "datasets.other.*"},
		{name: "nothing.here", err: ErrNoMatch},
		{name: "datasets.gold.*", app: "meters", pattern: "datasets.gold.*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := s.Resolve(tt.name)
			if tt.err != nil {
				var amb *AmbiguousError
				switch {
				case errors.As(tt.err, &amb):
					if !errors.As(err, &amb) {
						t.Fatalf("err = %v, want ambiguous", err)
					}
					if diff := cmp.Diff(tt.apps, amb.Apps); diff != "" {
						t.Errorf("apps (-want +got):\n%s", diff)
					}
				case !errors.Is(err, tt.err):
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.App.Name != tt.app || d.Match().Pattern != tt.pattern {
				t.Errorf("got %s/%s, want %s/%s", d.App.Name, d.Match().Pattern, tt.app, tt.pattern)
			}
		})
	}
}

func TestOverlayAndProvenance(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"apps/meters/governance.yaml":        baseYAML,
		"apps/meters/governance.meters.yaml": overlayYAML,
	})
	s, err := (&Loader{Inputs: Inputs{Trees: []string{dir}}}).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.ResolveIn("meters", "datasets.gold.meters")
	if err != nil {
		t.Fatal(err)
	}
	if got := *d.Rule().AccessLevel; got != "restricted" {
		t.Errorf("access_level = %q, want the overlay's restricted", got)
	}
	var prov map[string]struct {
		Layer      string `json:"layer"`
		File       string `json:"file"`
		Line       int    `json:"line"`
		MergedFrom []struct {
			Layer string `json:"layer"`
		} `json:"merged_from"`
	}
	if err := json.Unmarshal(d.Rule().AppendProvenanceJSON(nil), &prov); err != nil {
		t.Fatalf("%v\n%s", err, d.Rule().AppendProvenanceJSON(nil))
	}
	want := map[string]string{
		"access_level":          governance.LayerOverlaySource,
		"classification":        governance.LayerOverlayDefaults,
		"ownership":             governance.LayerDefaults,
		"expose":                governance.LayerSource,
		"row_filters":           governance.LayerSource,
		"dcat.temporal.start":   governance.LayerSource,
		"dataspace.odrl_action": governance.LayerDefaults,
		"dataspace.expose":      governance.LayerOverlaySource,
		"dataspace.purpose":     governance.LayerOverlaySource,
	}
	var keys []string
	for k := range prov {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for path, layer := range want {
		p, ok := prov[path]
		if !ok {
			t.Errorf("no provenance for %s (have %v)", path, keys)
			continue
		}
		if p.Layer != layer {
			t.Errorf("%s: layer %q, want %q", path, p.Layer, layer)
		}
		if p.Line == 0 || p.File == "" {
			t.Errorf("%s: no position: %+v", path, p)
		}
	}
	if n := len(prov["dataspace.purpose"].MergedFrom); n != 2 {
		t.Errorf("dataspace.purpose merged from %d layers, want 2", n)
	}
	if f := prov["access_level"].File; !strings.HasSuffix(f, "governance.meters.yaml") {
		t.Errorf("access_level file = %q, want the overlay", f)
	}
}

// TestDatasetsKeepWhatTheirRuleSays: what a dataset keeps of its rule (the
// check's reading of the merged rule, taken rather than merged again), and
// what it reads of its two sides without merging (title, description,
// ownership), is what its rule says, for every dataset of a tree with
// overlays, globs, owners and offers.
func TestDatasetsKeepWhatTheirRuleSays(t *testing.T) {
	tree := treegen.GeneratePipelines(treegen.PipelinesOptions{Apps: 12, Sources: 30, Seed: 3})
	dir := t.TempDir()
	if err := tree.Write(dir); err != nil {
		t.Fatal(err)
	}
	s, err := (&Loader{Inputs: Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")},
		OverlayName: tree.Options.OverlayName}}).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	seen := map[[2]any]bool{}
	for _, a := range s.Apps() {
		for _, d := range append(a.Datasets(), a.Defaults()) {
			seen[[2]any{"expose", d.Expose}], seen[[2]any{"offer", d.DataspaceExpose}] = true, true
			seen[[2]any{"level", d.AccessLevel()}], seen[[2]any{"class", d.Classification()}] = true, true
			r := d.Rule()
			title, hasTitle := d.Title()
			description, hasDescription := d.Description()
			got := []any{d.Expose, d.DataspaceExpose, d.Conflict(), d.Classification(), d.AccessLevel(), d.Ownership(), title, hasTitle, description, hasDescription}
			wantTitle, wantHasTitle := r.Title()
			wantDescription, wantHasDescription := r.Description()
			want := []any{governance.EffectiveExpose(r), governance.DataspaceExpose(r), governance.ExposureConflict(r), deref(r.Classification), deref(r.AccessLevel), r.Ownership(), wantTitle, wantHasTitle, wantDescription, wantHasDescription}
			seen[[2]any{"owners", len(d.Ownership())}] = true
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %q keeps (-its rule +kept):\n%s", a.Name, d.ID(), diff)
			}
			checked++
		}
	}
	testcorpus.AtLeast(t, "datasets", checked, 300)
	// A served tree has no exposure conflict: the check refuses one.
	testcorpus.AtLeast(t, "kinds of dataset (each gate both ways, several levels)", len(seen), 8)
}
