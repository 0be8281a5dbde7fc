package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/check/checktest"
	"github.com/celine-eu/governanced/internal/testcorpus"
	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
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
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(inst); err != nil {
				t.Fatalf("SARIF does not validate: %v\n%s", err, buf.String())
			}
			var log struct {
				Runs []struct {
					Tool struct {
						Driver struct {
							Name  string `json:"name"`
							Rules []struct {
								ID string `json:"id"`
							} `json:"rules"`
						} `json:"driver"`
					} `json:"tool"`
					Results []struct {
						RuleID    string `json:"ruleId"`
						RuleIndex int    `json:"ruleIndex"`
						Level     string `json:"level"`
						Locations []struct {
							PhysicalLocation struct {
								ArtifactLocation struct {
									URI string `json:"uri"`
								} `json:"artifactLocation"`
								Region struct {
									StartLine   int `json:"startLine"`
									StartColumn int `json:"startColumn"`
								} `json:"region"`
							} `json:"physicalLocation"`
						} `json:"locations"`
						Properties map[string]*string `json:"properties"`
					} `json:"results"`
					Properties struct {
						OK       bool          `json:"ok"`
						ExitCode int           `json:"exit_code"`
						Summary  check.Summary `json:"summary"`
					} `json:"properties"`
				} `json:"runs"`
			}
			if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
				t.Fatal(err)
			}
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
				for _, k := range []string{"path", "dataset", "subject"} {
					if _, ok := x.Properties[k]; !ok {
						t.Errorf("result %d: properties lack %q", i, k)
					}
				}
			}
			if p := log.Runs[0].Properties; p.OK != rep.OK || p.ExitCode != rep.ExitCode || p.Summary != rep.Summary {
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
