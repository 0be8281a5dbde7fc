package sarif

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestURIReference(t *testing.T) {
	for in, want := range map[string]string{
		"apps/grid/governance.yaml": "apps/grid/governance.yaml",
		"apps/[ab] x/*":             "apps/%5Bab%5D%20x/*",
		"apps/%zz":                  "apps/%25zz",
		"a:b/c":                     "a%3Ab/c",
		"x/a:b":                     "x/a:b",
		"/abs/path":                 "/abs/path",
		"apps/é":                    "apps/%C3%A9",
		"models/a (1).sql":          "models/a%20(1).sql",
	} {
		if got := URIReference(in); got != want {
			t.Errorf("URIReference(%q) = %q, want %q", in, got, want)
		}
		if strings.ContainsAny(URIReference(in), " []") {
			t.Errorf("URIReference(%q) keeps a character a URI cannot hold", in)
		}
	}
}

// TestRun: rules are listed once each, in the order results first use
// them, and what a run leaves empty is left out of the log.
func TestRun(t *testing.T) {
	run := NewRun(map[string]int{"n": 2})
	for _, code := range []string{"b", "a", "b"} {
		i := run.Rule(code, "rule "+code, "warning")
		run.Results = append(run.Results, Result{RuleID: code, RuleIndex: i, Level: "warning", Message: Text{code},
			Locations: []Location{FileLocation("x/y.sql", "", Region{StartLine: 1})}})
	}
	var b bytes.Buffer
	if err := Write(&b, run); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string
		Runs    []struct {
			Tool struct {
				Driver struct{ Rules []struct{ ID string } }
			}
			Results []struct {
				RuleIndex int
				Locations []map[string]any
			}
			OriginalURIBaseIDs any `json:"originalUriBaseIds"`
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	r := log.Runs[0]
	var rules []string
	for _, x := range r.Tool.Driver.Rules {
		rules = append(rules, x.ID)
	}
	var indexes []int
	for _, x := range r.Results {
		indexes = append(indexes, x.RuleIndex)
		if _, ok := x.Locations[0]["logicalLocations"]; ok {
			t.Errorf("a location without names has logicalLocations")
		}
	}
	if diff := cmp.Diff([]string{"b", "a"}, rules); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{0, 1, 0}, indexes); diff != "" {
		t.Errorf("rule indexes (-want +got):\n%s", diff)
	}
	if log.Version != "2.1.0" || r.OriginalURIBaseIDs != nil {
		t.Errorf("version %q, originalUriBaseIds %v", log.Version, r.OriginalURIBaseIDs)
	}
}
