package check_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/check/checktest"
	"github.com/celine-eu/governanced/internal/testcorpus"
)

// referenceDir is the celine-pipelines checkout the specification's §12a
// describes, read in place.
func referenceDir(t testing.TB) string {
	t.Helper()
	dir := testcorpus.Path(t, "reference/celine-pipelines")
	testcorpus.Glob(t, dir, "apps/*/governance.yaml", 17)
	return dir
}

// TestReferenceTree holds check.md §12a: the 17 real files pass with exactly
// 42 row-policy-undeclared warnings, fail under --strict, and produce no owner
// finding with dataset-api's registry (no dataset there is a dataspace offer).
func TestReferenceTree(t *testing.T) {
	dir := referenceDir(t)
	want := map[string][]string{
		"dwd":  {"datasets.ds_dev_gold.dwd_icon_d2_gusts"},
		"grid": prefixed("datasets.ds_dev_gold.", "grid_substations", "grid_network_topology", "grid_shapes", "grid_tiles", "grid_tile_index", "grid_risks", "grid_risks_trendline", "grid_risks_now"),
		"mt":   prefixed("datasets.ds_dev_gold.", "mt_observations_current", "mt_stations", "mt_alerts_active", "mt_forecast_hourly", "mt_forecast_daily"),
		"om":   {"datasets.ds_dev_silver.om_weather_hourly", "datasets.ds_dev_gold.om_heat_risk"},
		"owm": prefixed("datasets.ds_dev_gold.",
			"folgaria_weather_alerts", "folgaria_weather_current", "folgaria_weather_daily", "folgaria_weather_hourly", "folgaria_weather_minutely",
			"weather_alerts", "weather_feature_of_interest",
			"weather_observations_current", "weather_observations_daily", "weather_observations_hourly", "weather_observations_minutely", "weather_observations_unpivoted",
			"weather_observed_properties"),
		"pv_detection":      {"datasets.ds_dev_gold.pv_detected_installations"},
		"pv_estimation":     {"datasets.ds_dev_gold.pv_rooftop_opportunities"},
		"rec_flexibility":   prefixed("datasets.ds_dev_gold.", "rec_flexibility_windows_community", "rec_co2_savings_community"),
		"rec_it":            prefixed("datasets.ds_dev_gold.", "gse_cabine_primarie", "rec_virtual_consumption_15m", "rec_measurements_15m", "rec_virtual_consumption_hourly"),
		"trentino_rooftops": {"datasets.ds_dev_gold.pv_building_suitability"},
		"weather":           prefixed("datasets.ds_dev_gold.", "weather_forecast_hourly", "weather_forecast_daily", "weather_alerts_active", "weather_current"),
	}
	for _, tc := range []struct {
		name   string
		opts   check.Options
		ok     bool
		exit   int
		owners int
	}{
		{"plain", check.Options{Paths: []string{"apps/*"}}, true, 0, 0},
		{"strict", check.Options{Paths: []string{"apps/*"}, Strict: true}, false, 1, 0},
		{"owners", check.Options{Paths: []string{"apps/*"}, Owners: []string{"../dataset-api/owners.yaml"}}, true, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Dir = dir
			p, results := checked(t, tc.opts)
			rep := p.Report(results)
			wantSummary := check.Summary{Warnings: 42, Bases: 17, Datasets: 174, OwnersFiles: tc.owners}
			if diff := cmp.Diff(wantSummary, rep.Summary); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
			if rep.OK != tc.ok || rep.ExitCode != tc.exit {
				t.Errorf("ok=%v exit=%d, want ok=%v exit=%d", rep.OK, rep.ExitCode, tc.ok, tc.exit)
			}
			checktest.SameInMemory(t, tc.opts, rep)
			got := map[string][]string{}
			for _, f := range rep.Findings {
				if f.Code != check.CodeRowPolicyUndeclared || f.Severity != check.Warning || f.Dataset == nil || f.Line == 0 {
					t.Errorf("unexpected finding %+v", f)
					continue
				}
				app := strings.Split(f.File, "/")[1]
				got[app] = append(got[app], *f.Dataset)
			}
			for app := range want {
				slices.Sort(want[app])
				slices.Sort(got[app])
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("row-policy-undeclared by app (-spec +got):\n%s", diff)
			}
			if len(results) != 17 {
				t.Fatalf("%d units, want 17", len(results))
			}
			for i, res := range results {
				if res.Config == nil || p.Units[i].App == "" || res.Overlay != "" {
					t.Errorf("unit %s: want a materialised base without overlay", p.Units[i].Base.Display)
				}
			}
			if (p.Registry != nil) != (tc.owners > 0) {
				t.Errorf("registry built = %v with %d owners files", p.Registry != nil, tc.owners)
			}
		})
	}
}

func prefixed(prefix string, names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}
