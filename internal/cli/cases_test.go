package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/check/checktest"
	"github.com/google/go-cmp/cmp"
)

func loadSpecCases(t *testing.T) []specCase {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(casesDir(t), "C*"))
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
		t.Fatalf("found %d worked cases in testdata/check-cases, want the 48 of check.md §12", len(cases))
	}
	return cases
}

// asSpec is a finding as the specification's tables show it: everything but
// the message, which is never normative.
func asSpec(f check.Finding) specFinding {
	s := specFinding{Severity: string(f.Severity), Code: f.Code, Path: f.Path(), Dataset: f.Dataset, Subject: f.Subject}
	if f.File != "" {
		s.File = &f.File
	}
	if f.Line != 0 {
		line, col := f.Line, f.Column
		s.Line, s.Column = &line, &col
	}
	return s
}

// TestWorkedCases runs every worked case of check.md §12 through the command
// line parser and check.Run, and compares the whole report: every
// finding's severity, code, file, position, path, dataset and subject, their
// order, the summary and the exit code.
func TestWorkedCases(t *testing.T) {
	for _, c := range loadSpecCases(t) {
		t.Run(c.ID, func(t *testing.T) {
			tree := checktest.CaseDir(t, c.ID)
			inv, err := parseValidate(c.Args, &Env{Dir: tree})
			var rep *check.Report
			if err == nil {
				rep, err = check.Run(context.Background(), inv.opts)
				if ue, ok := err.(*check.UsageError); ok {
					err = &UsageError{Msg: ue.Msg}
				}
			}
			stdout, stderr, code := runValidate(t, tree, c.Args...)
			if code != c.Exit {
				t.Errorf("%s (%s): exit %d, want %d\nstdout:\n%s\nstderr:\n%s", c.ID, c.Title, code, c.Exit, stdout, stderr)
			}
			if c.UsageError {
				var ue *UsageError
				if !errors.As(err, &ue) {
					t.Fatalf("want a usage error, got err=%v", err)
				}
				if stdout != "" || stderr == "" {
					t.Errorf("a usage error writes nothing to stdout and a message to stderr; stdout %q, stderr %q", stdout, stderr)
				}
				return
			}
			if err != nil {
				t.Fatalf("check.Run: %v", err)
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
					if l[i].Code == check.CodeLoadError {
						l[i].Line, l[i].Column = nil, nil
					}
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s (%s): findings differ (-spec +got):\n%s\ntext report:\n%s", c.ID, c.Title, diff, stdout)
			}
			wantSummary := check.Summary{}
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
			checktest.SameInMemory(t, inv.opts, rep)
		})
	}
}
