package cli

import (
	"bytes"
	"context"
	"testing"

	"github.com/spf13/cobra"

	"github.com/celine-eu/governanced/internal/graph/graphcases"
)

// TestGraphCases runs every command-level case of the graph (graph.md §10
// and §12.1, and GOVERNANCE_GRAPH_CASES_DIR when set) through the graph
// command: stdout, stderr and exit status compared exactly.
func TestGraphCases(t *testing.T) {
	graphcases.Run(t, func(t *testing.T, c graphcases.Case) {
		t.Parallel()
		root := &cobra.Command{Use: "governanced"}
		root.AddCommand(NewGraphCmd(&Env{Dir: c.WorkDir(t)}))
		var stdout, stderr bytes.Buffer
		exit := Execute(context.Background(), root, append([]string{"graph"}, c.Args...), &stdout, &stderr)
		c.Check(t, stdout.String(), stderr.String(), exit)
	})
}
