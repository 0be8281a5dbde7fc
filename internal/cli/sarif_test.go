package cli

import (
	"bytes"
	"context"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/check/checktest"
	"github.com/celine-eu/governanced/internal/testcorpus"
)

// TestSARIFValidates renders every worked case, the real tree and a report
// with awkward paths as SARIF and validates each against the SARIF 2.1.0
// schema, then holds the GitHub code-scanning requirements the schema cannot
// express: every result has a physical location with a non-empty URI and a
// start line.
func TestSARIFValidates(t *testing.T) {
	schema := checktest.SARIFSchema(t)
	type run struct {
		name string
		dir  string
		opts check.Options
	}
	var runs []run
	for _, c := range loadSpecCases(t) {
		if c.UsageError {
			continue
		}
		inv, err := parseValidate(c.Args, &Env{})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run{c.ID, checktest.CaseDir(t, c.ID), inv.opts})
	}
	runs = append(runs,
		run{"reference", testcorpus.Path(t, "reference/celine-pipelines"), check.Options{Paths: []string{"apps/*"}}},
		run{"awkward-paths", checktest.CaseDir(t, "C01"), check.Options{Paths: []string{"apps/[ab] x/*", "apps/%zz", "apps/*"}}},
	)
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			dir, err := filepath.Abs(r.dir)
			if err != nil {
				t.Fatal(err)
			}
			r.opts.Dir = dir
			rep, err := check.Run(context.Background(), r.opts)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := rep.WriteSARIF(&buf); err != nil {
				t.Fatal(err)
			}
			log := checktest.ReadSARIF(t, schema, buf.Bytes())
			if len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "governanced" {
				t.Fatalf("want one run by governanced: %s", buf.String())
			}
			res := log.Runs[0].Results
			if len(res) != len(rep.Findings) {
				t.Fatalf("%d results for %d findings", len(res), len(rep.Findings))
			}
			for i, x := range res {
				f := rep.Findings[i]
				rules := log.Runs[0].Tool.Driver.Rules
				if x.RuleID != f.Code || rules[x.RuleIndex].ID != f.Code {
					t.Errorf("result %d: ruleId %q (index %d), want %q", i, x.RuleID, x.RuleIndex, f.Code)
				}
				if want := map[check.Severity]string{check.Error: "error", check.Warning: "warning", check.Info: "note"}[f.Severity]; x.Level != want {
					t.Errorf("result %d: level %q, want %q", i, x.Level, want)
				}
				if len(x.Locations) != 1 || x.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" || x.Locations[0].PhysicalLocation.Region.StartLine < 1 {
					t.Errorf("result %d (%s): GitHub needs a physical location with a URI and a start line: %+v", i, f.Code, x.Locations)
				}
				if f.Line > 0 && (x.Locations[0].PhysicalLocation.Region.StartLine != f.Line || x.Locations[0].PhysicalLocation.Region.StartColumn != f.Column) {
					t.Errorf("result %d: region %+v, want %d:%d", i, x.Locations[0].PhysicalLocation.Region, f.Line, f.Column)
				}
				if uri := x.Locations[0].PhysicalLocation.ArtifactLocation.URI; f.File != "" && unescape(uri) != f.File {
					t.Errorf("result %d: uri %q for file %q", i, x.Locations[0].PhysicalLocation.ArtifactLocation.URI, f.File)
				}
				props := checktest.SARIFProperties[map[string]*string](t, x.Properties)
				for _, k := range []string{"path", "dataset", "subject"} {
					if _, ok := props[k]; !ok {
						t.Errorf("result %d: properties lack %q", i, k)
					}
				}
			}
			if p := checktest.SARIFProperties[struct {
				OK       bool          `json:"ok"`
				ExitCode int           `json:"exit_code"`
				Summary  check.Summary `json:"summary"`
			}](t, log.Runs[0].Properties); p.OK != rep.OK || p.ExitCode != rep.ExitCode || p.Summary != rep.Summary {
				t.Errorf("run properties %+v do not match the report", p)
			}
		})
	}
}

func unescape(uri string) string {
	s, err := url.PathUnescape(uri)
	if err != nil {
		return "unescapable " + uri
	}
	return s
}
