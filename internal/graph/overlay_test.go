package graph

import (
	"bytes"
	"testing"
)

// TestOverlays is --overlays: each base merged with the overlay beside it
// (by the app's name, or --overlay-name) before the graph is built, where
// without it an overlay that retires a producer changes nothing.
func TestOverlays(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"apps/grid/governance.yaml":         "depends_on: []\nsources:\n  datasets.ds_dev_gold.grid_risks: {}\n",
		"apps/grid/governance.grid.yaml":    "active: false\n",
		"apps/grid/governance.prod.yaml":    "depends_on:\n  - dataset: datasets.*_gold.nowhere\n",
		"apps/weather/governance.yaml":      "depends_on:\n  - dataset: datasets.*_gold.grid_risks\n",
		"apps/weather/governance.prod.yaml": "sources:\n  datasets.ds_dev_gold.w: {}\n",
	})
	run := func(o CLIOptions) (string, string, int) {
		o.Dir, o.Format = dir, "tree"
		var stdout, stderr bytes.Buffer
		code := RunCLI(o, &stdout, &stderr)
		return stdout.String(), stderr.String(), code
	}
	tests := []struct {
		name           string
		opts           CLIOptions
		stdout, stderr string
	}{
		{"bases only", CLIOptions{Patterns: []string{"apps/*/*"}},
			"\ntier 0\n  grid\n\ntier 1\n  weather  <- grid\n",
			"\n2 pipelines (2 declaring inputs), 1 edges\n  skipped overlay: apps/grid/governance.grid.yaml\n  skipped overlay: apps/grid/governance.prod.yaml\n  skipped overlay: apps/weather/governance.prod.yaml\n"},
		{"overlays by app name", CLIOptions{Patterns: []string{"apps/*/*"}, Overlays: true},
			"\ntier 0\n  grid (inactive)\n\ntier 1\n  weather  <- grid (inactive)\n",
			"\n2 pipelines (2 declaring inputs), 1 edges\n  skipped overlay: apps/grid/governance.prod.yaml\n  skipped overlay: apps/weather/governance.prod.yaml\n" +
				"  inactive-producer: weather is active and reads datasets.ds_dev_gold.grid_risks from grid, which is marked inactive — whatever it reads is as old as the last time that pipeline ran\n"},
		{"overlays by name", CLIOptions{Patterns: []string{"apps/*"}, Overlays: true, OverlayName: "prod"},
			"\ntier 0\n  grid\n\ntier 1\n  weather  <- grid\n",
			"\n2 pipelines (2 declaring inputs), 1 edges\n" +
				"  unresolved: grid depends on datasets.*_gold.nowhere, which no scanned pipeline produces and which is not marked `external: true` — a typo, or a tree not globbed\n"},
	}
	for _, tt := range tests {
		stdout, stderr, code := run(tt.opts)
		if stdout != tt.stdout || stderr != tt.stderr || code != 0 {
			t.Errorf("%s: exit %d\nstdout %q\nwant   %q\nstderr %q\nwant   %q", tt.name, code, stdout, tt.stdout, stderr, tt.stderr)
		}
	}
}
