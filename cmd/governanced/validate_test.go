package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestValidate runs the gate through governanced's own command dispatch on a
// worked case of check.md §12: exit status carried by cli.ExitError, the report
// alone on stdout.
func TestValidate(t *testing.T) {
	t.Chdir("../../testdata/check-cases/C19/tree")
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
	}{
		{[]string{"validate", "apps/*"}, 1, "apps/a/governance.yaml:6:18: error: row-filter-unknown-handler [datasets.gold.x]: "},
		{[]string{"validate", "apps/*", "--format", "json"}, 1, "{\n  \"report_version\": 1,"},
		{[]string{"validate", "apps/nothing"}, 1, "apps/nothing: error: path-no-match: "},
		{[]string{"validate"}, 2, ""},
		{[]string{"validate", "--help"}, 0, "Check governance trees as they will be served"},
	} {
		var stdout, stderr bytes.Buffer
		err := runE(context.Background(), tc.args, func(string) string { return "" }, &stdout, &stderr)
		if code := exitCode(err, &stderr); code != tc.code {
			t.Errorf("%q: exit %d, want %d (stderr %q)", tc.args, code, tc.code, stderr.String())
		}
		if !strings.HasPrefix(stdout.String(), tc.stdout) {
			t.Errorf("%q: stdout %q, want prefix %q", tc.args, stdout.String(), tc.stdout)
		}
		if tc.code == 2 && (stdout.Len() != 0 || stderr.Len() == 0) {
			t.Errorf("%q: a usage error goes to stderr only; stdout %q", tc.args, stdout.String())
		}
	}
}
