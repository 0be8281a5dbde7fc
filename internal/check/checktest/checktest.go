// Package checktest holds what the tests of the check and of its command
// line share: findings rendered as the specification's tables show them,
// a check run again on a copy of its tree in memory, and the SARIF 2.1.0
// schema and reader every SARIF log's tests (the check's, the diff's, the
// lineage audit's) hold their logs to.
package checktest

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/testcorpus"
	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
)

// Brief renders a finding as one line of a check.md §12 table: severity,
// code, file, line:col, path, dataset, subject, "-" for null.
func Brief(f check.Finding) string {
	opt := func(p *string) string {
		if p == nil {
			return "-"
		}
		if *p == "" {
			return `""`
		}
		return *p
	}
	loc := "-"
	if f.Line != 0 {
		loc = strconv.Itoa(f.Line) + ":" + strconv.Itoa(f.Column)
	}
	file := f.File
	if file == "" {
		file = "-"
	}
	return strings.Join([]string{string(f.Severity), f.Code, file, loc, opt(f.Path()), opt(f.Dataset), opt(f.Subject)}, " ")
}

// Briefs is Brief for every finding of a report.
func Briefs(r *check.Report) []string {
	out := []string{}
	for _, f := range r.Findings {
		out = append(out, Brief(f))
	}
	return out
}

// SameInMemory runs the check again on a copy of its tree (opts.Dir) in
// memory, as an upload or the embedded demo is checked, and fails the test
// unless the report is want. Options naming files outside the tree are
// left alone.
func SameInMemory(t testing.TB, opts check.Options, want *check.Report) {
	t.Helper()
	for _, p := range append(slices.Clone(opts.Paths), opts.Owners...) {
		if strings.HasPrefix(p, "../") || filepath.IsAbs(p) {
			return // outside the tree a copy holds
		}
	}
	opts.FS, opts.Dir = MemTree(t, opts.Dir), ""
	got, err := check.Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("in memory: %v", err)
	}
	var a, b bytes.Buffer
	if err := want.WriteJSON(&a); err != nil {
		t.Fatal(err)
	}
	if err := got.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a.String(), b.String()); diff != "" {
		t.Errorf("the report in memory differs (-on disk +in memory):\n%s", diff)
	}
}

// MemTree copies the regular files and directories under dir into memory.
func MemTree(t testing.TB, dir string) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		info, err := os.Stat(p)
		if err != nil {
			return err
		}
		if info.IsDir() {
			out[filepath.ToSlash(rel)] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = &fstest.MapFile{Data: data, Mode: 0o644}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// CaseDir is the fixture tree of a worked case of check.md §12.
func CaseDir(t testing.TB, id string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join(testcorpus.Root(t), "check-cases", id, "tree"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("worked case %s: %v", id, err)
	}
	return dir
}

// SARIFSchema is the official SARIF 2.1.0 (rtm.5) JSON schema, draft-04,
// as Microsoft's SARIF tooling ships it (testdata/README.md says where it
// came from), compiled with formats asserted, so that every artifact URI
// must be a URI reference.
func SARIFSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(testcorpus.Path(t, "sarif/sarif-2.1.0-rtm.5.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://example.invalid/sarif-2.1.0-rtm.5.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
