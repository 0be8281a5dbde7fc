package dbt

import (
	"fmt"
	"testing"

	"github.com/celine-eu/governanced/internal/propagate"
	"github.com/celine-eu/governanced/internal/propagate/propagatetest"
)

// genRules governs the generated project: every third source personal and
// restricted, the others green and open; every seventh model green, open
// and offered into the dataspace.
func genRules(n int) propagatetest.Rules {
	rules := propagatetest.Rules{}
	for i := 0; i < max(1, n/10); i++ {
		if i%3 == 0 {
			rules[fmt.Sprintf("db.raw.raw_%d", i)] = propagatetest.Rule("pii", "restricted", false, false)
		} else {
			rules[fmt.Sprintf("db.raw.raw_%d", i)] = propagatetest.Rule("green", "open", false, false)
		}
	}
	for i := 0; i < n; i += 7 {
		rules[fmt.Sprintf("db.main.m%d", i)] = propagatetest.Rule("green", "open", true, true)
	}
	return rules
}

// auditGenerated is what `governanced lineage audit` does after loading the
// tree: read the artifacts, analyse every model, infer, audit.
func auditGenerated(tb testing.TB, manifestJSON, catalogJSON []byte, rules propagate.Rules, parallelism int) *propagate.Report {
	m, err := ReadManifest(manifestJSON, "manifest.json")
	if err != nil {
		tb.Fatal(err)
	}
	c, err := ReadCatalog(catalogJSON, "catalog.json")
	if err != nil {
		tb.Fatal(err)
	}
	g, err := NewGraph(tb.Context(), m, c, parallelism)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := propagate.Infer(tb.Context(), g.Propagation(), rules)
	if err != nil {
		tb.Fatal(err)
	}
	rep, err := propagate.Audit(res, propagate.AuditOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

// TestAuditGenerated: the generated project is audited whole, every column
// known, and the personal sources reach exposed models.
func TestAuditGenerated(t *testing.T) {
	mj, cj := genProjectJSON(1000, false)
	rep := auditGenerated(t, mj, cj, genRules(1000), 0)
	if rep.Summary.Relations != 143 || rep.Summary.Columns != 143*8 || rep.Summary.Incomplete != 0 {
		t.Errorf("summary %+v: want the 143 governed models' 8 columns each, all complete", rep.Summary)
	}
	if rep.Summary.Findings == 0 || rep.Summary.Exposed != rep.Summary.Findings {
		t.Errorf("summary %+v: want findings, all in offered models", rep.Summary)
	}
	for _, f := range rep.Findings {
		if len(f.Path) < 2 || f.Path[0].Declared == nil || f.Path[0].Declared.Classification != "pii" {
			t.Fatalf("%s.%s: path %+v does not start at a personal source", f.Relation, f.Column, f.Path)
		}
	}
}

// BenchmarkAuditGenerated is `lineage audit` on a generated 1,000-model
// project, from the artifacts' bytes to the report, on one core
// (docs/lineage.md).
func BenchmarkAuditGenerated(b *testing.B) {
	mj, cj := genProjectJSON(1000, false)
	rules := genRules(1000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		auditGenerated(b, mj, cj, rules, 1)
	}
}

// BenchmarkInferGenerated is the inference and the audit alone, on the
// same project's analysed lineage.
func BenchmarkInferGenerated(b *testing.B) {
	m, c := genProject(1000, false)
	g, err := NewGraph(b.Context(), m, c, 0)
	if err != nil {
		b.Fatal(err)
	}
	pg := g.Propagation()
	rules := genRules(1000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := propagate.Infer(b.Context(), pg, rules)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := propagate.Audit(res, propagate.AuditOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
