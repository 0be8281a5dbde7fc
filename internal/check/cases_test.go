package check

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func loadSpecCases(t *testing.T) []specCase {
	t.Helper()
	dirs, err := filepath.Glob("testdata/cases/C*")
	if err != nil {
		t.Fatal(err)
	}
	var cases []specCase
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "case.json"))
		if err != nil {
			t.Fatal(err)
		}
		var c specCase
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		cases = append(cases, c)
	}
	if len(cases) != 48 {
		t.Fatalf("found %d worked cases in testdata/cases, want the 48 of check.md §12", len(cases))
	}
	return cases
}

// asSpec is a finding as the specification's tables show it: everything but
// the message, which is never normative.
func asSpec(f Finding) specFinding {
	s := specFinding{Severity: string(f.Severity), Code: f.Code, File: nonEmpty(f.File), Path: f.Path, Dataset: f.Dataset, Subject: f.Subject}
	if f.Line != 0 {
		s.Line, s.Column = nonZero(f.Line), nonZero(f.Column)
	}
	return s
}

// TestWorkedCases runs every worked case of check.md §12 through the command
// line parser and Run, and compares the whole report: every
// finding's severity, code, file, position, path, dataset and subject, their
// order, the summary and the exit code.
func TestWorkedCases(t *testing.T) {
	for _, c := range loadSpecCases(t) {
		t.Run(c.ID, func(t *testing.T) {
			tree, err := filepath.Abs(filepath.Join("testdata/cases", c.ID, "tree"))
			if err != nil {
				t.Fatal(err)
			}
			inv, err := ParseArgs(c.Args)
			var rep *Report
			if err == nil {
				inv.Options.Dir = tree
				rep, err = Run(context.Background(), inv.Options)
			}
			var stdout, stderr bytes.Buffer
			code := runCLI(c.Args, tree, &stdout, &stderr)
			if code != c.Exit {
				t.Errorf("%s (%s): exit %d, want %d\nstdout:\n%s\nstderr:\n%s", c.ID, c.Title, code, c.Exit, stdout.String(), stderr.String())
			}
			if c.UsageError {
				var ue *UsageError
				if !errors.As(err, &ue) {
					t.Fatalf("want a usage error, got err=%v", err)
				}
				if stdout.Len() != 0 || stderr.Len() == 0 {
					t.Errorf("a usage error writes nothing to stdout and a message to stderr; stdout %q, stderr %q", stdout.String(), stderr.String())
				}
				return
			}
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			got := make([]specFinding, len(rep.Findings))
			for i, f := range rep.Findings {
				got[i] = asSpec(f)
			}
			want := c.Findings
			// A load error's position is whatever the parser reports
			// (check.md §5 item 1, §11.3): informative, not compared.
			for _, l := range [][]specFinding{got, want} {
				for i := range l {
					if l[i].Code == CodeLoadError {
						l[i].Line, l[i].Column = nil, nil
					}
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s (%s): findings differ (-spec +got):\n%s\ntext report:\n%s", c.ID, c.Title, diff, stdout.String())
			}
			wantSummary := Summary{}
			if c.Summary != nil {
				wantSummary = *c.Summary
			} else {
				// "Findings: none": the counts the case states; what was
				// checked is not stated, so it is taken as found.
				wantSummary.Bases, wantSummary.Overlays = rep.Summary.Bases, rep.Summary.Overlays
				wantSummary.OwnersFiles, wantSummary.Datasets = rep.Summary.OwnersFiles, rep.Summary.Datasets
			}
			if diff := cmp.Diff(wantSummary, rep.Summary); diff != "" {
				t.Errorf("%s: summary differs (-spec +got):\n%s", c.ID, diff)
			}
			wantOK := c.Exit == 0
			if c.OK != nil {
				wantOK = *c.OK
			}
			if rep.OK != wantOK || rep.ExitCode != c.Exit {
				t.Errorf("%s: ok=%v exit_code=%d, want ok=%v exit_code=%d", c.ID, rep.OK, rep.ExitCode, wantOK, c.Exit)
			}
			sameInMemory(t, inv.Options, rep)
		})
	}
}

// sameInMemory runs the check again on a copy of its tree in memory, as an
// upload or the embedded demo is checked, and holds it to the same report.
func sameInMemory(t *testing.T, opts Options, want *Report) {
	t.Helper()
	for _, p := range append(slices.Clone(opts.Paths), opts.Owners...) {
		if strings.HasPrefix(p, "../") {
			return // outside the tree a copy holds
		}
	}
	fsys := memTree(t, opts.Dir)
	opts.FS, opts.Dir = fsys, ""
	got, err := Run(context.Background(), opts)
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

// memTree copies the regular files and directories under dir into memory.
func memTree(t *testing.T, dir string) fstest.MapFS {
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
