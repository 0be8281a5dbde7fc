package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/graph/graphcases"
)

// TestRun holds the compatibility entry point: `celine-governance validate …`
// behaves exactly as `governanced validate …`, and only validate and graph
// are offered.
func TestRun(t *testing.T) {
	t.Chdir("../../testdata/check-cases/C21/tree")
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
	}{
		{[]string{"validate", "apps/*"}, 0, "apps/a/governance.yaml:3:3: warning: row-policy-undeclared [datasets.gold.private]: "},
		{[]string{"validate", "apps/*", "--strict"}, 1, "apps/a/governance.yaml:3:3: warning: row-policy-undeclared"},
		{[]string{"validate", "apps/*", "--format", "sarif"}, 0, "{\n  \"$schema\": "},
		{[]string{"validate", "apps/*", "--dataspace"}, 2, ""},
		{[]string{"lineage"}, 2, ""},
		{[]string{"graph", "--bogus"}, 2, ""},
		{nil, 2, ""},
		{[]string{"--help"}, 0, "The celine-utils governance command lines"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), tc.args, &stdout, &stderr); code != tc.code {
			t.Errorf("%q: exit %d, want %d (stderr %q)", tc.args, code, tc.code, stderr.String())
		}
		if !strings.HasPrefix(stdout.String(), tc.stdout) {
			t.Errorf("%q: stdout %q, want prefix %q", tc.args, stdout.String(), tc.stdout)
		}
	}
}

// TestGraphCases runs the graph cases (graph.md §10, §12.1, and
// GOVERNANCE_GRAPH_CASES_DIR when set) through `celine-governance graph`, so
// that a CI job written for the Python CLI keeps working.
func TestGraphCases(t *testing.T) {
	graphcases.Run(t, func(t *testing.T, c graphcases.Case) {
		t.Chdir(c.WorkDir(t))
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"graph"}, c.Args...), &stdout, &stderr)
		c.Check(t, stdout.String(), stderr.String(), code)
	})
}
