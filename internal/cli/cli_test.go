package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/check/checktest"
	"github.com/google/go-cmp/cmp"
)

func TestParseValidate(t *testing.T) {
	type want struct {
		opts   check.Options
		format string
	}
	for _, tc := range []struct {
		name string
		args []string
		want want
	}{
		{"paths and flags interleaved", []string{"apps/*", "--strict", "more", "--dataspace", "--owners", "a.yaml", "--owners=b.yaml"},
			want{check.Options{Paths: []string{"apps/*", "more"}, Strict: true, Dataspace: true, Owners: []string{"a.yaml", "b.yaml"}}, "text"}},
		{"the last --format wins", []string{"x", "--format", "json", "--format=sarif"},
			want{check.Options{Paths: []string{"x"}}, "sarif"}},
		{"-- ends the options", []string{"--strict", "--", "--odd-name", "-"},
			want{check.Options{Paths: []string{"--odd-name", "-"}, Strict: true}, "text"}},
		{"an empty overlay dir is a value", []string{"x", "--overlay-dir", "", "--placeholders", "p.yaml", "--owners", "o.yaml"},
			want{check.Options{Paths: []string{"x"}, OverlayDir: str(""), PlaceholdersFile: str("p.yaml"), Owners: []string{"o.yaml"}}, "text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseValidate(tc.args, &Env{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, want{got.opts, got.format}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateUsageErrors holds check.md §2.1's usage errors: exit 2, a
// message on stderr, nothing on stdout.
func TestValidateUsageErrors(t *testing.T) {
	dir := checktest.CaseDir(t, "C01")
	for _, args := range [][]string{
		{},
		{"x", "--bogus"},
		{"x", "-x"},
		{"x", "--owners"},
		{"x", "--format", "xml"},
		{"x", "--overlay-dir", "a", "--overlay-dir", "b"},
		{"x", "--overlay-name", "a", "--overlay-name", "b"},
		{"x", "--placeholders", "a", "--placeholders", "b"},
		{"x", "--overlay-name", ""},
		{"x", "--overlay-name", "../up"},
		{"x", "--strict=yes"},
		{"x", "--own", "o.yaml"}, // options are written whole
		{"x", "--dataspace"},
		{"x", "--placeholders", "p.yaml"},
		{"x", "--output", "sarif"},
		{"x", "--output", "xml=out.xml"},
	} {
		stdout, stderr, code := runValidate(t, dir, args...)
		if code != 2 || stdout != "" || stderr == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, nothing, a message", args, code, stdout, stderr)
		}
	}
}

// TestValidateOutputs: --output writes the report in each format named, from
// the one run, beside the report on standard output.
func TestValidateOutputs(t *testing.T) {
	dir := t.TempDir()
	tree := checktest.CaseDir(t, "C21")
	sarif, report := filepath.Join(dir, "r.sarif"), filepath.Join(dir, "r.json")
	stdout, _, code := runValidate(t, tree, "apps/*", "--output", "sarif="+sarif, "--output", "json="+report)
	if code != 0 || !strings.Contains(stdout, "row-policy-undeclared") {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	for _, f := range []string{sarif, report} {
		data, err := os.ReadFile(f)
		if err != nil || !json.Valid(data) || !strings.Contains(string(data), "row-policy-undeclared") {
			t.Errorf("%s: %v %.80s", f, err, data)
		}
	}
}

// TestCLIOutput holds the presentation of check.md §2.1 and §11: the report
// on stdout only, nothing on stderr unless the command line is wrong, and the
// exit status.
func TestCLIOutput(t *testing.T) {
	run := func(t *testing.T, id string, args ...string) (string, string, int) {
		t.Helper()
		return runValidate(t, checktest.CaseDir(t, id), args...)
	}

	t.Run("text", func(t *testing.T) {
		out, errOut, code := run(t, "C24", "apps/*")
		if code != 1 || errOut != "" {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		wantPrefixes := []string{
			"-: info: owners-not-checked: ",
			"apps/a/governance.yaml:5:3: error: consent-without-subject-filter [datasets.gold.none]: ",
			"apps/a/governance.yaml:7:3: error: consent-without-subject-filter [datasets.gold.http_only]: ",
			"apps/a/governance.yaml:7:3: warning: consent-filter-not-delegable [datasets.gold.http_only]: ",
			"apps/a/governance.yaml:15:3: warning: legacy-row-filter [datasets.gold.legacy]: ",
			"result: fail (errors=2, warnings=2, infos=1, strict=off)",
		}
		if len(lines) != len(wantPrefixes) {
			t.Fatalf("%d lines, want %d:\n%s", len(lines), len(wantPrefixes), out)
		}
		for i, p := range wantPrefixes {
			if !strings.HasPrefix(lines[i], p) {
				t.Errorf("line %d = %q, want prefix %q", i+1, lines[i], p)
			}
		}
	})

	t.Run("text with a file-only location, strict", func(t *testing.T) {
		out, _, code := run(t, "C15", "apps/grid", "--strict")
		want := regexp.MustCompile(`^apps/grid/governance\.prod\.yaml: warning: overlay-unused: .+\nresult: fail \(errors=0, warnings=1, infos=0, strict=on\)\n$`)
		if code != 1 || !want.MatchString(out) {
			t.Errorf("exit %d, output:\n%s", code, out)
		}
	})

	t.Run("json", func(t *testing.T) {
		out, _, code := run(t, "C25", "apps/*", "--owners", "owners.yaml", "--format", "json")
		if code != 1 {
			t.Fatalf("exit %d", code)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{
			"report_version": 1.0, "ok": false, "exit_code": 1.0, "strict": false,
			"inputs": map[string]any{"paths": []any{"apps/*"}, "overlay_dir": nil, "overlay_name": nil,
				"owners": []any{"owners.yaml"}, "placeholders": nil, "dataspace": false, "infer_from_dir": true},
			"summary": map[string]any{"errors": 1.0, "warnings": 0.0, "infos": 0.0, "bases": 1.0, "overlays": 0.0, "owners_files": 1.0, "datasets": 3.0},
			"findings": []any{map[string]any{
				"severity": "error", "code": "owner-unresolved", "file": "apps/a/governance.yaml", "line": 8.0, "column": 3.0,
				"path": "/sources/datasets.gold.offer_unknown", "dataset": "datasets.gold.offer_unknown", "subject": "acme",
				"message": doc["findings"].([]any)[0].(map[string]any)["message"],
			}},
		}
		if diff := cmp.Diff(want, doc); diff != "" {
			t.Errorf("JSON report (-want +got):\n%s", diff)
		}
	})

	t.Run("github", func(t *testing.T) {
		out, _, code := run(t, "C26", "apps/*", "--owners", "owners.yaml", "--owners", "owners.local.yaml", "--format", "github")
		want := regexp.MustCompile(`^::notice title=owners-not-loaded::.+\n` +
			`::error file=owners\.local\.yaml,title=owners-file-not-found::.+\n` +
			`result: fail \(errors=1, warnings=0, infos=1, strict=off\)\n$`)
		if code != 1 || !want.MatchString(out) {
			t.Errorf("exit %d, output:\n%s", code, out)
		}
		out, _, _ = run(t, "C20", "apps/*", "--format", "github")
		if !strings.Contains(out, "::warning file=apps/a/governance.yaml,line=8,col=11,title=row-filter-unknown-arg::[datasets.gold.x] ") {
			t.Errorf("no located warning annotation:\n%s", out)
		}
	})

	t.Run("usage error", func(t *testing.T) {
		out, errOut, code := run(t, "C01", "apps/*", "--dataspace")
		if code != 2 || out != "" || !strings.Contains(errOut, "--owners") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
		}
	})

	t.Run("help", func(t *testing.T) {
		out, errOut, code := run(t, "C01", "--help")
		if code != 0 || errOut != "" || !strings.Contains(out, "Usage:\n  governanced validate PATH... [flags]") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
		}
	})
}

func str(s string) *string { return &s }
