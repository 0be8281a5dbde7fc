package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestShareFindings(t *testing.T) {
	s := func(v string) *string { return &v }
	warn := func(file string, line int, msg string) Finding {
		return Finding{Severity: Warning, Code: CodeUnknownKey, File: file, Line: line, Column: 3, path: s("/sources/k"), Message: msg}
	}
	a1, a2, b1 := warn("a.yaml", 1, "x"), warn("a.yaml", 2, "x"), warn("b.yaml", 1, "x")
	tests := []struct {
		name  string
		plan  []Finding   // the plan's own findings
		units [][]Finding // each unit's, as its check left them
		// shared[i]: unit i's findings are the report's own afterwards
		shared []bool
	}{
		{"one run each", nil, [][]Finding{{a2, a1}, {b1}}, []bool{true, true}},
		{"a unit's repeats collapse", nil, [][]Finding{{a1, a2, a1}, {b1}}, []bool{true, true}},
		{"none", nil, [][]Finding{nil, {b1}}, []bool{false, true}},
		// The report keeps the plan's copy of a1 (a smaller message sorts
		// first and wins the collapse): unit 0 keeps its own.
		{"a finding the report holds another copy of", []Finding{warn("a.yaml", 1, "w")}, [][]Finding{{a1}, {b1}}, []bool{false, true}},
		// Another finding between a unit's two: not one run.
		{"not one run", []Finding{{Severity: Info, Code: CodeUnknownKey, File: "a.yaml", Line: 1, Column: 9}}, [][]Finding{{a1, a2}}, []bool{false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Plan{findings: tt.plan}
			results := make([]UnitResult, len(tt.units))
			for i, fs := range tt.units {
				results[i].Findings = append([]Finding(nil), fs...)
			}
			rep := p.Report(results)
			rep.ShareFindings(results)
			for i, r := range results {
				own := len(r.Findings) > 0 && !inside(r.Findings, rep.Findings)
				if got := len(r.Findings) > 0 && !own; got != tt.shared[i] {
					t.Errorf("unit %d shares the report's findings: %v, want %v", i, got, tt.shared[i])
				}
				if cap(r.Findings) != len(r.Findings) {
					t.Errorf("unit %d: an append to its findings would write into the report", i)
				}
			}
			// Reporting again from the shared results gives the same report.
			if diff := cmp.Diff(rep, p.Report(results), cmp.AllowUnexported(Finding{})); diff != "" {
				t.Errorf("report from shared results (-first +again):\n%s", diff)
			}
		})
	}
}

// inside reports whether sub lies in the array of all.
func inside(sub, all []Finding) bool {
	for i := range all {
		if &all[i] == &sub[0] {
			return true
		}
	}
	return false
}
