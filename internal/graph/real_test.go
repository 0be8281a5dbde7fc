package graph_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/graph"
	"github.com/celine-eu/governanced/internal/testcorpus"
)

// realTree is graph.md §11's tree output, put together from its tiers, its
// inactive pipelines, its edges and its list of datasets satisfied outside
// the scan (all 17 files declare their inputs).
const realTree = `
tier 0
  copernicus (inactive)
  dwd (inactive)
  mt
  om
  osm
  overture (inactive)
  owm (inactive)
  rec_flexibility_commitments
  rec_metering
  rec_registry

tier 1
  grid  <- mt, om
  pv_detection (inactive)  <- overture (inactive)
  rec_flexibility  <- rec_flexibility_commitments, rec_metering
  rec_it  <- rec_metering, rec_registry
  trentino_rooftops (inactive)  <- overture (inactive)
  weather  <- mt

tier 2
  pv_estimation (inactive)  <- overture (inactive), pv_detection (optional) (inactive), rec_it, trentino_rooftops (inactive)

satisfied outside this scan
  datasets.*_gold.meters_energy_forecast
  datasets.*_gold.total_meters_forecast
  datasets.*_silver.meters_data_normalized
  datasets.*_silver.silver_grid_ac_line_segment
  datasets.*_silver.silver_grid_substation
`

// TestRealPipelines is graph.md §11: the 17 celine-pipelines files.
func TestRealPipelines(t *testing.T) {
	dir := testcorpus.Path(t, "reference/celine-pipelines")
	for _, strict := range []bool{false, true} {
		var stdout, stderr bytes.Buffer
		exit := graph.RunCLI(graph.CLIOptions{Patterns: []string{"apps/*"}, Format: "tree", Strict: strict, Dir: dir}, &stdout, &stderr)
		if exit != 0 {
			t.Errorf("strict=%v: exit %d, want 0", strict, exit)
		}
		if diff := cmp.Diff(realTree, stdout.String()); diff != "" {
			t.Errorf("tree (-want +got):\n%s", diff)
		}
		if want := "\n17 pipelines (17 declaring inputs), 18 edges\n"; stderr.String() != want {
			t.Errorf("stderr %q, want %q", stderr.String(), want)
		}
	}

	d, err := graph.Discover(dir, []string{"apps/*"})
	if err != nil {
		t.Fatal(err)
	}
	pipelines, missing, err := graph.Load(d)
	if err != nil || len(missing) != 0 || len(d.SkippedOverlays) != 0 {
		t.Fatalf("Load: %v, missing %v, skipped %v", err, missing, d.SkippedOverlays)
	}
	g := graph.Build(pipelines, graph.Options{})
	if len(g.Findings) != 0 {
		t.Errorf("findings: %+v", g.Findings)
	}
	var inactive []string
	for _, p := range g.Pipelines {
		if !p.Active {
			inactive = append(inactive, p.Name)
		}
	}
	if diff := cmp.Diff([]string{"copernicus", "dwd", "overture", "owm", "pv_detection", "pv_estimation", "trentino_rooftops"}, inactive); diff != "" {
		t.Errorf("inactive (-want +got):\n%s", diff)
	}
	wantTiers := [][]string{
		{"copernicus", "dwd", "mt", "om", "osm", "overture", "owm", "rec_flexibility_commitments", "rec_metering", "rec_registry"},
		{"grid", "pv_detection", "rec_flexibility", "rec_it", "trentino_rooftops", "weather"},
		{"pv_estimation"},
	}
	if diff := cmp.Diff(wantTiers, g.Tiers()); diff != "" {
		t.Errorf("tiers (-want +got):\n%s", diff)
	}

	// §11's edges, as producer → consumer: dataset, with the schema the
	// consumer's pattern matched (C13: two are literal raw mirrors).
	want := []string{
		"om → grid: datasets.ds_dev_gold.om_wind_gusts",
		"om → grid: datasets.ds_dev_gold.om_heat_risk",
		"om → grid: datasets.ds_dev_silver.om_obs_15min",
		"mt → grid: datasets.ds_dev_gold.heat_daily_obs",
		"overture → pv_detection: datasets.ds_dev_silver.pv_overture_buildings",
		"overture → pv_estimation: datasets.ds_dev_silver.pv_overture_buildings",
		"overture → trentino_rooftops: datasets.ds_dev_silver.pv_overture_buildings",
		"trentino_rooftops → pv_estimation: datasets.ds_dev_gold.pv_building_suitability",
		"rec_it → pv_estimation: datasets.ds_dev_gold.gse_cabine_primarie",
		"pv_detection → pv_estimation: datasets.ds_dev_gold.pv_detected_installations (optional)",
		"rec_metering → rec_flexibility: datasets.ds_dev_gold.meters_data_15m",
		"rec_metering → rec_it: datasets.ds_dev_gold.meters_data_15m",
		"rec_flexibility_commitments → rec_flexibility: datasets.raw.flexibility_commitments_mirror",
		"rec_registry → rec_it: datasets.raw.rec_registry_mirror",
		"mt → weather: datasets.ds_dev_gold.weather__forecast_hourly",
		"mt → weather: datasets.ds_dev_gold.weather__forecast_daily",
		"mt → weather: datasets.ds_dev_gold.weather__alerts",
		"mt → weather: datasets.ds_dev_gold.weather__current",
	}
	var got []string
	for _, e := range g.Edges {
		s := e.Producer + " → " + e.Consumer + ": " + e.Dataset
		if e.Optional {
			s += " (optional)"
		}
		got = append(got, s)
		literal := e.Pattern == "datasets.raw.flexibility_commitments_mirror" || e.Pattern == "datasets.raw.rec_registry_mirror"
		if !literal && !strings.HasPrefix(e.Pattern, "datasets.*_") {
			t.Errorf("edge %s: pattern %q, want datasets.*_<layer>. or a literal raw mirror", s, e.Pattern)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}

	var mermaid bytes.Buffer
	if err := graph.Render(&mermaid, g, graph.Mermaid); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(mermaid.String(), "\n")
	for line, want := range map[string]int{"    om --> grid": 3, "    mt --> weather": 4} {
		if countOf(lines, line) != want {
			t.Errorf("%q %d times, want %d", line, countOf(lines, line), want)
		}
	}
}

func countOf(lines []string, line string) int {
	n := 0
	for _, l := range lines {
		if l == line {
			n++
		}
	}
	return n
}
