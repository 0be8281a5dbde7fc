package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestRun holds the compatibility entry point: `celine-governance validate …`
// behaves exactly as `governanced validate …`, and nothing else is offered.
func TestRun(t *testing.T) {
	t.Chdir("../../internal/check/testdata/cases/C21/tree")
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
	}{
		{[]string{"validate", "apps/*"}, 0, "apps/a/governance.yaml:3:3: warning: row-policy-undeclared [datasets.gold.private]: "},
		{[]string{"validate", "apps/*", "--strict"}, 1, "apps/a/governance.yaml:3:3: warning: row-policy-undeclared"},
		{[]string{"validate", "apps/*", "--format", "sarif"}, 0, "{\n  \"$schema\": "},
		{[]string{"validate", "apps/*", "--dataspace"}, 2, ""},
		{[]string{"graph"}, 2, ""},
		{nil, 2, ""},
		{[]string{"--help"}, 0, "usage: celine-governance validate"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code != tc.code {
			t.Errorf("%q: exit %d, want %d (stderr %q)", tc.args, code, tc.code, stderr.String())
		}
		if !strings.HasPrefix(stdout.String(), tc.stdout) {
			t.Errorf("%q: stdout %q, want prefix %q", tc.args, stdout.String(), tc.stdout)
		}
	}
}
