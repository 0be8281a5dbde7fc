package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/check/checktest"
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

// TestDiffSARIF: --format sarif and --output sarif=FILE write the same
// SARIF 2.1.0 log, every change placed at the head's file relative to
// %SRCROOT% (the working directory, the repository's root), the risky
// ones as warnings.
func TestDiffSARIF(t *testing.T) {
	schema := checktest.SARIFSchema(t)
	ws := t.TempDir()
	celineCheckout(t, filepath.Join(ws, "base"))
	celineCheckout(t, ws)
	editFile(t, filepath.Join(ws, "apps/copernicus/governance.yaml"), "  access_level: internal\n", "  access_level: open\n")
	t.Chdir(ws)

	code, out, errs := runArgs(t, "diff", "--base", "base", "--owners", "owners.yaml", "--format", "sarif", "--output", "sarif=diff.sarif")
	if code != 0 {
		t.Fatalf("exit %d (stderr %q)", code, errs)
	}
	file, err := os.ReadFile("diff.sarif")
	if err != nil || string(file) != out {
		t.Errorf("--output sarif=diff.sarif (%v) is not what --format sarif wrote", err)
	}
	log := checktest.ReadSARIF(t, schema, []byte(out))
	lowered := 0
	for _, r := range log.Runs[0].Results {
		loc := r.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URIBaseID != "%SRCROOT%" {
			t.Errorf("%s at %+v: not relative to %%SRCROOT%%", r.RuleID, loc)
		}
		if r.RuleID == string(diff.AccessLevelLowered) {
			lowered++
			if r.Level != "warning" || loc.ArtifactLocation.URI != "apps/copernicus/governance.yaml" || loc.Region.StartLine != 8 {
				t.Errorf("access-level-lowered: %s at %+v, want a warning at apps/copernicus/governance.yaml:8", r.Level, loc)
			}
		}
	}
	if lowered != 4 {
		t.Errorf("%d access-level-lowered results, want one per dataset (4)", lowered)
	}
}

func TestDiffUsage(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, args := range [][]string{
		{"diff"},
		{"diff", "--base", "nowhere"},
		{"diff", "--base", ".", "--head", "nowhere"},
		{"diff", "--base", ".", "--format", "yaml"},
		{"diff", "--base", ".", "--fail-on", "dataspace-offerd"},
		{"diff", "--base", ".", "extra"},
		{"diff", "--base", ".", "--overlay-name", "a/b"},
		{"diff", "--base", ".", "--dataspace"},
		{"diff", "--base", ".", "--nope"},
		{"diff", "--base", ".", "--output", "comment.md"},
		{"diff", "--base", ".", "--output", "yaml=x"},
	} {
		code, out, errs := runArgs(t, args...)
		if code != 2 || out != "" || errs == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and the reason on stderr", args, code, out, errs)
		}
	}
	if code, out, _ := runArgs(t, "diff", "--help"); code != 0 || !strings.Contains(out, "governanced diff --base DIR|REF [--head DIR] [flags]") {
		t.Errorf("--help: exit %d, %q", code, out)
	}
}

// TestServeDiff: POST /diff against a running server serving the real tree
// with its owners registry outside the tree root. The served tree uploaded
// is no change; a one-line edit gives what `governanced diff` gives for the
// same two trees, named as the server names its files.
func TestServeDiff(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	celineCheckout(t, tree)
	if err := os.Rename(filepath.Join(tree, "owners.yaml"), filepath.Join(dir, "owners.yaml")); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, map[string]string{"GOVERNANCED_LOG_LEVEL": "warn"}, "--tree", tree, "--owners", filepath.Join(dir, "owners.yaml"))
	served := s.status(t).Revision

	post := func(body []byte, contentType, query string) diff.Report {
		t.Helper()
		resp, err := http.Post(s.base+"/diff"+query, contentType, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("POST /diff%s: %d %s", query, resp.StatusCode, b)
		}
		var rep diff.Report
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
		return rep
	}

	same := post(tarGz(t, tree), "application/gzip", "")
	if !same.Empty() || same.Base.Revision != served || same.Head.Revision != served {
		t.Errorf("the served tree uploaded: base %s head %s (served %s), %d datasets", same.Base.Revision, same.Head.Revision, served, len(same.Datasets))
	}

	head := filepath.Join(dir, "head")
	if err := os.CopyFS(head, os.DirFS(tree)); err != nil {
		t.Fatal(err)
	}
	editFile(t, filepath.Join(head, "apps/mt/governance.yaml"), "  license: CC-BY-4.0\n", "  license: CC-BY-SA-4.0\n")
	rep := post(tarGz(t, head), "application/gzip", "")
	if rep.Count(diff.LicenceChanged) == 0 || rep.Base.Revision != served || rep.Head.Revision == served {
		t.Fatalf("kinds %+v, base %s head %s", rep.Kinds, rep.Base.Revision, rep.Head.Revision)
	}
	for _, d := range rep.Datasets {
		if o := d.Fields[0].Origin; o == nil || o.File != "apps/mt/governance.yaml" {
			t.Errorf("%s: the change is stated at %+v, want the served tree's name for it, from the tree's root", d.Dataset, o)
		}
	}

	// The CLI on the same two trees, with the same registry.
	code, out, errs := runArgs(t, "diff", "--base", tree, "--head", head, "--owners", filepath.Join(dir, "owners.yaml"), "--format", "json")
	if code != 0 {
		t.Fatalf("governanced diff: exit %d: %s", code, errs)
	}
	var cli diff.Report
	if err := json.Unmarshal([]byte(out), &cli); err != nil {
		t.Fatal(err)
	}
	summary := func(r diff.Report) []string {
		var out []string
		for _, d := range r.Datasets {
			out = append(out, fmt.Sprintf("%s %s %s %v %d", d.Status, d.App, d.Dataset, d.Kinds, len(d.Fields)))
		}
		return out
	}
	if d := cmp.Diff(summary(cli), summary(rep)); d != "" || len(cli.Datasets) == 0 {
		t.Errorf("POST /diff and governanced diff disagree (-cli +http):\n%s", d)
	}

	// Two uploads: the base in a part of its own, the options in the query.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range []struct{ name, dir string }{{"base", tree}, {"head", head}} {
		w, _ := mw.CreateFormFile(p.name, p.name+".tar.gz")
		w.Write(tarGz(t, p.dir))
	}
	mw.Close()
	two := post(body.Bytes(), mw.FormDataContentType(), "")
	if d := cmp.Diff(summary(cli), summary(two)); d != "" {
		t.Errorf("two uploads and governanced diff disagree (-cli +http):\n%s", d)
	}
}
