package graph_test

import (
	"bytes"
	"testing"

	"github.com/celine-eu/governanced/internal/graph"
	"github.com/celine-eu/governanced/internal/graph/graphcases"
)

// TestCases runs every command-level case (testdata/cases, graph.md §10 and
// §12.1, and GOVERNANCE_GRAPH_CASES_DIR when set) through RunCLI.
func TestCases(t *testing.T) {
	n := 0
	for _, dir := range graphcases.Dirs() {
		cases, err := graphcases.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			n++
			t.Run(c.Name, func(t *testing.T) {
				t.Parallel()
				opts, err := graph.ParseArgs(c.Args)
				if err != nil {
					t.Fatalf("ParseArgs(%q): %v", c.Args, err)
				}
				opts.Dir = c.WorkDir(t)
				var stdout, stderr bytes.Buffer
				exit := graph.RunCLI(opts, &stdout, &stderr)
				c.Check(t, stdout.String(), stderr.String(), exit)
			})
		}
	}
	if n == 0 {
		t.Fatal("no cases found")
	}
}
