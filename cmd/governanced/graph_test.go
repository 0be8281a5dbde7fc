package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/graph/graphcases"
)

// TestGraphCases runs every command-level graph case (graph.md §10, §12.1,
// and GOVERNANCE_GRAPH_CASES_DIR when set) through `governanced graph`:
// standard output, standard error and exit status compared exactly.
func TestGraphCases(t *testing.T) {
	graphcases.Run(t, func(t *testing.T, c graphcases.Case) {
		t.Chdir(c.WorkDir(t))
		var stdout, stderr bytes.Buffer
		err := runE(context.Background(), append([]string{"graph"}, c.Args...), func(string) string { return "" }, &stdout, &stderr)
		code := exitCode(err, &stderr)
		c.Check(t, stdout.String(), stderr.String(), code)
	})
}

func TestGraphUsage(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"graph", "--bogus"}, 2, "", "governanced graph: unknown flag: --bogus\nRun 'governanced graph --help' for usage.\n"},
		{[]string{"graph", "--format"}, 2, "", "governanced graph: flag needs an argument: --format\n"},
		{[]string{"graph", "--strict=yes"}, 2, "", "governanced graph: invalid argument \"yes\" for \"--strict\" flag"},
		{[]string{"graph", "--overlay-name", "x"}, 2, "", "governanced graph: --overlay-name needs --overlays\n"},
		{[]string{"graph", "--help"}, 0, "Show which pipelines feed which", ""},
	} {
		var stdout, stderr bytes.Buffer
		err := runE(context.Background(), tc.args, func(string) string { return "" }, &stdout, &stderr)
		if code := exitCode(err, &stderr); code != tc.code {
			t.Errorf("%q: exit %d, want %d", tc.args, code, tc.code)
		}
		if !strings.HasPrefix(stdout.String(), tc.stdout) || !strings.HasPrefix(stderr.String(), tc.stderr) {
			t.Errorf("%q: stdout %q, stderr %q; want prefixes %q, %q", tc.args, stdout.String(), stderr.String(), tc.stdout, tc.stderr)
		}
	}
}
