package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/diff"
	"github.com/celine-eu/governanced/internal/testcorpus"
)

// celineCheckout lays out a CELINE pipelines checkout with dataset-api's
// owners registry beside its apps, at dir.
func celineCheckout(t *testing.T, dir string) {
	t.Helper()
	if err := os.CopyFS(dir, os.DirFS(testcorpus.Path(t, "reference/celine-pipelines"))); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(testcorpus.Path(t, "reference/dataset-api/owners.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "owners.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func editFile(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s does not hold %q", path, old)
	}
	if err := os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runArgs(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, func(string) string { return "" }, &out, &errb)
	return code, out.String(), errb.String()
}

// TestDiffCommand: the CI job's layout — the base checked out in base/, the
// pull request in the working directory — with an owners registry in each.
func TestDiffCommand(t *testing.T) {
	ws := t.TempDir()
	celineCheckout(t, filepath.Join(ws, "base"))
	celineCheckout(t, filepath.Join(ws, "head"))
	// The head offers the copernicus datasets that inherit the defaults and
	// moves the alias rec to another owner in its own registry.
	editFile(t, filepath.Join(ws, "head/apps/copernicus/governance.yaml"), "  access_level: internal\n", "  access_level: open\n")
	editFile(t, filepath.Join(ws, "head/owners.yaml"), "    aliases: [rec]", "    aliases: []")
	editFile(t, filepath.Join(ws, "head/owners.yaml"), "  - id: celine\n", "  - id: celine\n    aliases: [rec]\n")
	t.Chdir(ws)

	code, out, errs := runArgs(t, "diff", "--base", "base", "--head", "head", "--owners", "owners.yaml", "--format", "json", "--output", "markdown=comment.md")
	if code != 0 {
		t.Fatalf("exit %d without --fail-on (stderr %q)", code, errs)
	}
	var rep diff.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Count(diff.AccessLevelLowered) != 4 || rep.Count(diff.OwnerChanged) == 0 || !rep.Head.OK || rep.Base.Root != "base" {
		t.Errorf("kinds %+v, head ok %v, base root %q; want 4 access-level-lowered, owner-changed from the head's own registry", rep.Kinds, rep.Head.OK, rep.Base.Root)
	}
	for _, d := range rep.Datasets {
		for _, f := range d.Fields {
			if f.Origin != nil && strings.HasPrefix(f.Origin.File, "head/") {
				t.Errorf("%s: the JSON names %s with the root in front; it is relative to the root", d.Dataset, f.Origin.File)
			}
		}
	}
	md, err := os.ReadFile("comment.md")
	if err != nil || !bytes.Contains(md, []byte("`access-level-lowered` | 4 datasets of `copernicus`")) || !bytes.Contains(md, []byte("`head/apps/copernicus/governance.yaml:8`")) {
		t.Errorf("comment.md (%v):\n%s", err, md)
	}

	code, _, errs = runArgs(t, "diff", "--base", "base", "--head", "head", "--owners", "owners.yaml", "--fail-on", "dataspace-offered,access-level-lowered")
	if code != 1 || !strings.Contains(errs, "fails on access-level-lowered (4)") {
		t.Errorf("--fail-on a kind that occurred: exit %d, stderr %q", code, errs)
	}
	code, _, _ = runArgs(t, "diff", "--base", "base", "--head", "head", "--owners", "owners.yaml", "--fail-on", "dataspace-offered")
	if code != 0 {
		t.Errorf("--fail-on a kind that did not occur: exit %d", code)
	}

	// A tree against itself: no change, whatever the gate names.
	t.Chdir("base")
	code, out, _ = runArgs(t, "diff", "--base", ".", "--owners", "owners.yaml", "--fail-on", "any")
	if code != 0 || !strings.HasSuffix(out, "summary: no change\n") {
		t.Errorf("a tree against itself: exit %d, %q", code, out)
	}
}

func TestDiffUsage(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, args := range [][]string{
		{"diff"},
		{"diff", "--base", "nowhere"},
		{"diff", "--base", ".", "--head", "nowhere"},
		{"diff", "--base", ".", "--format", "sarif"},
		{"diff", "--base", ".", "--fail-on", "dataspace-offerd"},
		{"diff", "--base", ".", "extra"},
		{"diff", "--base", ".", "--overlay-name", "a/b"},
		{"diff", "--base", ".", "--dataspace"},
		{"diff", "--base", ".", "--nope"},
		{"diff", "--base", ".", "--output", "comment.md"},
		{"diff", "--base", ".", "--output", "sarif=x"},
	} {
		code, out, errs := runArgs(t, args...)
		if code != 2 || out != "" || errs == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and the reason on stderr", args, code, out, errs)
		}
	}
	if code, out, _ := runArgs(t, "diff", "--help"); code != 0 || !strings.Contains(out, "governanced diff --base DIR [--head DIR] [flags]") {
		t.Errorf("--help: exit %d, %q", code, out)
	}
}
